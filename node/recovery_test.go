package node

import (
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/sync/grpcpeer"
)

func TestOwnOriginRecovered(t *testing.T) {
	const self = "rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	synced := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	peer := func(id, state string, last time.Time, has int64) grpcpeer.PeerStatus {
		return grpcpeer.PeerStatus{ReplicaID: id, State: state, LastSync: last, PeerHas: map[string]int64{self: has}}
	}
	for _, c := range []struct {
		name     string
		peers    []grpcpeer.PeerStatus
		minPeers int
		ok       bool
		why      string
	}{
		{"no peer", nil, 0, false, "1 synced peer(s), 0 so far"},
		{"only a peer not reachable", []grpcpeer.PeerStatus{peer("rep_b", grpcpeer.StateBackoff, synced, 7)}, 0, false, "0 so far"},
		{"a peer not reachable last held more", []grpcpeer.PeerStatus{peer("rep_b", grpcpeer.StateBackoff, synced, 9), peer("rep_c", grpcpeer.StateFollowing, synced, 7)}, 0, false, "ops 8-9 of this origin from peer rep_b (backoff)"},
		{"a peer before its first round holds more", []grpcpeer.PeerStatus{peer("rep_b", grpcpeer.StateSyncing, time.Time{}, 9), peer("rep_c", grpcpeer.StateFollowing, synced, 7)}, 0, false, "ops 8-9"},
		{"a peer before its first round", []grpcpeer.PeerStatus{peer("rep_b", grpcpeer.StateSyncing, time.Time{}, 0)}, 0, false, "first round"},
		{"a peer holds more", []grpcpeer.PeerStatus{peer("rep_b", grpcpeer.StateFollowing, synced, 7), peer("rep_c", grpcpeer.StateFollowing, synced, 9)}, 0, false, "ops 8-9 of this origin from peer rep_c"},
		{"held what every peer holds", []grpcpeer.PeerStatus{peer("rep_b", grpcpeer.StateFollowing, synced, 7), peer("rep_c", grpcpeer.StateSyncing, synced, 5)}, 0, true, ""},
		{"two sessions of one peer are one peer", []grpcpeer.PeerStatus{peer("rep_b", grpcpeer.StateFollowing, synced, 7), peer("rep_b", grpcpeer.StateFollowing, synced, 7)}, 2, false, "2 synced peer(s), 1 so far"},
		{"enough peers", []grpcpeer.PeerStatus{peer("rep_b", grpcpeer.StateFollowing, synced, 7), peer("rep_c", grpcpeer.StateFollowing, synced, 7)}, 2, true, ""},
	} {
		ok, why := ownOriginRecovered(self, 7, c.peers, c.minPeers)
		if ok != c.ok || !strings.Contains(why, c.why) {
			t.Errorf("%s: %v %q, want %v %q", c.name, ok, why, c.ok, c.why)
		}
	}
}
