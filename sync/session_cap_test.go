package lssync_test

import (
	"strings"
	"testing"
	"time"

	lssync "github.com/lsnode/lsnode/sync"
)

// TestGRPC_InboundSessionCap: a listener that serves its maximum of
// sessions refuses one more, the dialer keeps retrying it as busy (not
// refused for good), and it gets in once a served session ends.
func TestGRPC_InboundSessionCap(t *testing.T) {
	b := startNodeWith(t, "c1", 0, func(c *lssync.Config) { c.MaxInboundSessions = 1 })
	a, c := startNode(t, "c1", 0), startNode(t, "c1", 0)
	if err := a.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "a's session to b", func() bool { return a.rep.Peers()[0].State == lssync.StateFollowing })
	if err := c.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "c refused by b", func() bool {
		return counterValue(b.reg, "lsnode_sync_sessions_refused_total") >= 1
	})
	ps := c.rep.Peers()[0]
	if ps.State != lssync.StateBackoff && ps.State != lssync.StateConnecting {
		t.Errorf("c's peer b is %s, want it retried (backoff or connecting)", ps.State)
	}
	if !strings.Contains(ps.LastError, "too many replication sessions") {
		t.Errorf("c's LastError = %q, want the cap named", ps.LastError)
	}
	a.rep.RemovePeer(b.addr)
	eventually(t, 5*time.Second, "c's session to b once a left", func() bool { return c.rep.Peers()[0].State == lssync.StateFollowing })
}
