package grpcpeer

import (
	"slices"
	"testing"

	lssync "github.com/lsnode/lsnode/sync"
)

// One ready session per peer replica is offered pushes: one whose peer
// follows, then the outbound one, then the one tracked first.
func TestPushSessions_OnePerPeer(t *testing.T) {
	r := &Replicator{}
	r.mu.sessions = map[*session]struct{}{}
	add := func(dir, peer string, ready, follows bool) *session {
		s := &session{dir: dir}
		s.status.Store(&lssync.LinkStatus{PeerReplicaID: peer, Ready: ready, PeerFollows: follows})
		r.track(s, true)
		return s
	}
	xIn := add("inbound", "rep_x", true, true)
	xOut := add("outbound", "rep_x", true, true)
	yIn1 := add("inbound", "rep_y", true, false)
	add("inbound", "rep_y", true, false)
	add("outbound", "rep_z", false, false) // handshake not done
	zIn := add("inbound", "rep_z", true, false)
	add("outbound", "", false, false)
	add("outbound", "rep_w", true, false)
	wIn := add("inbound", "rep_w", true, true) // only this one's peer follows

	got := r.pushSessions()
	want := []*session{xOut, yIn1, zIn, wIn}
	if len(got) != len(want) {
		t.Fatalf("%d push sessions, want %d", len(got), len(want))
	}
	for _, s := range want {
		if !slices.Contains(got, s) {
			t.Errorf("the %s session to %s is not a push session", s.dir, s.status.Load().PeerReplicaID)
		}
	}
	r.track(xOut, false) // the outbound session ends: the inbound one takes over
	if got := r.pushSessions(); !slices.Contains(got, xIn) {
		t.Errorf("after the outbound session ended, the inbound one to rep_x does not push")
	}
}

// The origins a node follows directly are the peers of its ready
// sessions, caught up or still pulling, each once, sorted.
func TestDirectOrigins_FollowedPeers(t *testing.T) {
	r := &Replicator{}
	r.mu.sessions = map[*session]struct{}{}
	for _, st := range []lssync.LinkStatus{
		{PeerReplicaID: "rep_y", Ready: true, CaughtUp: true},
		{PeerReplicaID: "rep_x", Ready: true, CaughtUp: true},
		{PeerReplicaID: "rep_x", Ready: true, CaughtUp: true}, // the other session of a mutual pair
		{PeerReplicaID: "rep_z", Ready: true},                 // still pulling: direct all the same
		{PeerReplicaID: "rep_w", CaughtUp: true},              // ended
	} {
		s := &session{}
		s.status.Store(&st)
		r.track(s, true)
	}
	if got, want := r.directOrigins(), []string{"rep_x", "rep_y", "rep_z"}; !slices.Equal(got, want) {
		t.Errorf("direct origins %v, want %v", got, want)
	}
}
