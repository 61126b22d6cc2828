package grpcpeer_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// TestGRPC_InboundSessionCap: a listener that serves its maximum of
// sessions refuses one more, the dialer keeps retrying it as busy (not
// refused for good), and it gets in once a served session ends.
func TestGRPC_InboundSessionCap(t *testing.T) {
	b := startNodeWith(t, "c1", 0, func(c *grpcpeer.Config) { c.MaxInboundSessions = 1 })
	a, c := startNode(t, "c1", 0), startNode(t, "c1", 0)
	if err := a.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "a's session to b", func() bool { return a.rep.Peers()[0].State == grpcpeer.StateFollowing })
	if err := c.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "c refused by b, and told why", func() bool {
		return counterValue(b.reg, "lsnode_sync_sessions_refused_total") >= 1 &&
			strings.Contains(c.rep.Peers()[0].LastError, "too many replication sessions")
	})
	if st := c.rep.Peers()[0].State; st != grpcpeer.StateBackoff && st != grpcpeer.StateConnecting {
		t.Errorf("c's peer b is %s, want it retried (backoff or connecting)", st)
	}
	a.rep.RemovePeer(b.addr)
	testwait.Until(t, 5*time.Second, "c's session to b once a left", func() bool { return c.rep.Peers()[0].State == grpcpeer.StateFollowing })
}
