package grpcpeer_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// TestGRPC_ClockSeriesEndWithTheSession: a peer's clock offset and skew
// are measurements of a live session; once the last session with the peer
// ends they are dropped, so that no stale skew keeps an alert firing for a
// peer that is gone. Its lag, the last thing known, stays.
func TestGRPC_ClockSeriesEndWithTheSession(t *testing.T) {
	a, b := startNode(t, "c1", 0), startNode(t, "c1", 0)
	if err := a.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	peer := b.st.ReplicaID()
	testwait.Until(t, 5*time.Second, "b's clock measured on a", func() bool {
		return hasSeries(a.reg, "lsnode_sync_peer_clock_offset_seconds", peer) && hasSeries(a.reg, "lsnode_sync_peer_lag_ops", peer)
	})
	b.rep.Stop()
	testwait.Until(t, 5*time.Second, "a's session to b ended", func() bool { return a.rep.Peers()[0].State != grpcpeer.StateFollowing })
	testwait.Until(t, 5*time.Second, "b's clock series dropped on a", func() bool {
		return !hasSeries(a.reg, "lsnode_sync_peer_clock_offset_seconds", peer) && !hasSeries(a.reg, "lsnode_sync_peer_clock_skewed", peer)
	})
	if !hasSeries(a.reg, "lsnode_sync_peer_lag_ops", peer) {
		t.Error("b's lag series dropped with the session; the last known lag should stay")
	}
}

// hasSeries reports whether reg holds a series of name with peer="peer".
func hasSeries(reg *prometheus.Registry, name, peer string) bool {
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "peer" && l.GetValue() == peer {
					return true
				}
			}
		}
	}
	return false
}
