package grpcpeer_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// TestGRPC_MutualPeersPushOnce: two nodes that list each other run two
// sessions, both following, but each op is pushed on one only: the
// receiver gets at most one pushed copy of each (a round may pull one
// first, making its pushed copy a duplicate). Pushing on both sessions
// gives two copies.
func TestGRPC_MutualPeersPushOnce(t *testing.T) {
	a, b := startNode(t, "c1", 0), startNode(t, "c1", 0)
	a.append(t, "before")
	if err := a.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	if err := b.rep.AddPeer(a.addr); err != nil {
		t.Fatal(err)
	}
	synced := func(after time.Time) func() bool {
		return func() bool {
			for _, n := range []*testNode{a, b} {
				p := n.rep.Peers()
				if len(p) != 2 {
					return false
				}
				for _, ps := range p {
					if ps.State != grpcpeer.StateFollowing || !ps.LastSync.After(after) {
						return false
					}
				}
			}
			return true
		}
	}
	testwait.Until(t, 10*time.Second, "all four session ends following", synced(time.Time{}))
	// One more round on each session, started by a following dialer: now
	// each end knows its peer follows, on both sessions.
	testwait.Until(t, 10*time.Second, "a round on every session", synced(time.Now()))
	const n = 50
	for i := range n {
		a.append(t, fmt.Sprintf("pushed %d", i))
	}
	testwait.Until(t, 10*time.Second, "ops replicated", sameVectors(a, b))
	pushed := opsCounter(t, b.reg, "push", "applied") + opsCounter(t, b.reg, "push", "duplicate")
	if pushed == 0 || pushed > n {
		t.Errorf("%v pushed copies of %d ops received, want at most one each", pushed, n)
	}
}

// opsCounter is lsnode_sync_ops_total{path, result} in reg.
func opsCounter(t *testing.T, reg *prometheus.Registry, path, result string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "lsnode_sync_ops_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["path"] == path && labels["result"] == result {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
