package grpcpeer_test

import (
	"context"
	"fmt"
	"maps"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// skewedWall is a wall clock d ahead of the machine's.
type skewedWall struct{ d time.Duration }

func (w skewedWall) Now() time.Time { return time.Now().Add(w.d) }

// testNode is a store, a Replicator and a gRPC server on 127.0.0.1.
type testNode struct {
	st   *store.Store
	rep  *grpcpeer.Replicator
	reg  *prometheus.Registry
	addr string
}

func startNode(t *testing.T, cluster string, skew time.Duration) *testNode {
	t.Helper()
	return startNodeWith(t, cluster, skew, func(*grpcpeer.Config) {})
}

// startNodeWith is startNode with a hook to change the test config.
func startNodeWith(t *testing.T, cluster string, skew time.Duration, tune func(*grpcpeer.Config)) *testNode {
	t.Helper()
	ctx := context.Background()
	wall := skewedWall{skew}
	st, err := store.Open(ctx, store.Config{Dir: t.TempDir(), Wall: wall})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	cfg := grpcpeer.DefaultConfig(cluster)
	cfg.Wall = wall
	cfg.SyncInterval = 200 * time.Millisecond
	cfg.TickInterval = 20 * time.Millisecond
	cfg.DialBackoffMin = 20 * time.Millisecond
	cfg.DialBackoffMax = 200 * time.Millisecond
	cfg.Metrics = prometheus.NewRegistry()
	tune(&cfg)
	rep, err := grpcpeer.NewReplicator(cfg, lssync.StoreLog(st))
	if err != nil {
		t.Fatalf("new replicator: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := grpc.NewServer(rep.ServerOptions()...)
	rep.RegisterGRPC(srv)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	if err := rep.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		rep.Stop()
		srv.Stop()
		<-done
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return &testNode{st: st, rep: rep, reg: cfg.Metrics.(*prometheus.Registry), addr: lis.Addr().String()}
}

func (n *testNode) append(t *testing.T, body string) store.Event {
	t.Helper()
	w, err := n.st.Append(context.Background(), store.AppendInput{
		Type: "note", Stream: "project/x", Room: "main", FromAgent: "a@" + n.st.ReplicaID()[4:10], ToAgent: "*", Body: body,
	})
	if err != nil {
		t.Fatalf("append: %v", err)
	}
	return w.Event
}

func sameVectors(nodes ...*testNode) func() bool {
	return func() bool {
		first := nodes[0].st.VersionVector()
		for _, n := range nodes[1:] {
			if !maps.Equal(first, n.st.VersionVector()) {
				return false
			}
		}
		return true
	}
}

func TestGRPC_CatchUpThenPush(t *testing.T) {
	a, b := startNode(t, "c1", 0), startNode(t, "c1", 0)
	for i := range 300 {
		a.append(t, fmt.Sprintf("a%d", i))
	}
	for i := range 120 {
		b.append(t, fmt.Sprintf("b%d", i))
	}
	if err := a.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	catchUp := time.Now()
	testwait.Until(t, time.Minute, "catch-up both ways", sameVectors(a, b))
	t.Logf("catch-up of 420 ops took %s", time.Since(catchUp))
	testwait.Until(t, 5*time.Second, "following", func() bool {
		p := a.rep.Peers()
		return len(p) == 1 && p[0].State == grpcpeer.StateFollowing
	})
	// Live push: a new op reaches the peer without waiting for a round.
	start := time.Now()
	e := b.append(t, "pushed")
	testwait.Until(t, 2*time.Second, "push", func() bool { return a.st.VersionVector()[e.OriginReplica] >= e.OriginSeq })
	t.Logf("push latency %s", time.Since(start))

	// The status follows the op by a vector exchange: poll until it
	// settles instead of reading it the moment the op landed.
	var ps grpcpeer.PeerStatus
	testwait.Until(t, 5*time.Second, "outbound status caught up", func() bool {
		ps = a.rep.Peers()[0]
		return ps.LagOps == 0
	})
	if ps.ReplicaID != b.st.ReplicaID() || ps.Direction != "outbound" || ps.ClockSkewed {
		t.Errorf("outbound status = %+v", ps)
	}
	in := b.rep.Peers()
	if len(in) != 1 || in[0].Direction != "inbound" || in[0].ReplicaID != a.st.ReplicaID() {
		t.Errorf("inbound status = %+v", in)
	}
}

func TestGRPC_OtherClusterRefused(t *testing.T) {
	a, b := startNode(t, "c1", 0), startNode(t, "c2", 0)
	a.append(t, "secret")
	b.append(t, "other")
	if err := a.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "refusal", func() bool {
		p := a.rep.Peers()
		return len(p) == 1 && p[0].State == grpcpeer.StateRefused
	})
	ps := a.rep.Peers()[0]
	if !strings.Contains(ps.LastError, `cluster "c2"`) || !strings.Contains(ps.LastError, `cluster "c1"`) {
		t.Errorf("LastError = %q, want both cluster ids named", ps.LastError)
	}
	if got := len(b.st.VersionVector()); got != 1 {
		t.Errorf("refused peer holds %d origins, want only its own", got)
	}
	if got := len(a.st.VersionVector()); got != 1 {
		t.Errorf("refused dialer holds %d origins, want only its own", got)
	}
}

// TestGRPC_Relay: a and c both dial b only; each learns the other's ops
// through b, first by pull and then by relayed push.
func TestGRPC_Relay(t *testing.T) {
	a, b, c := startNode(t, "c1", 0), startNode(t, "c1", 0), startNode(t, "c1", 0)
	c.append(t, "before")
	for _, n := range []*testNode{a, c} {
		if err := n.rep.AddPeer(b.addr); err != nil {
			t.Fatal(err)
		}
	}
	testwait.Until(t, 10*time.Second, "relay by pull", sameVectors(a, b, c))
	e := c.append(t, "after")
	testwait.Until(t, 5*time.Second, "relay by push", func() bool { return a.st.VersionVector()[e.OriginReplica] == e.OriginSeq })
}

// TestGRPC_ClockSkew: a peer 2s ahead is reported with its offset; its ops
// are still stored.
func TestGRPC_ClockSkew(t *testing.T) {
	a, b := startNode(t, "c1", 0), startNode(t, "c1", 2*time.Second)
	e := b.append(t, "from the future")
	if err := a.rep.AddPeer(b.addr); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 5*time.Second, "skewed op stored", func() bool { return a.st.VersionVector()[e.OriginReplica] == e.OriginSeq })
	testwait.Until(t, 5*time.Second, "skew reported", func() bool {
		p := a.rep.Peers()
		return len(p) == 1 && p[0].ClockSkewed
	})
	ps := a.rep.Peers()[0]
	if ps.ClockOffset < 1900*time.Millisecond || ps.ClockOffset > 2100*time.Millisecond {
		t.Errorf("offset = %s, want about 2s", ps.ClockOffset)
	}
	testwait.Until(t, 5*time.Second, "skew reported by the listener", func() bool {
		p := b.rep.Peers()
		return len(p) == 1 && p[0].ClockSkewed && p[0].ClockOffset < -1900*time.Millisecond
	})
}

// TestGRPC_ConfigPeers: the static peers of Config.Peers are dialed from
// Start, as peers given to AddPeer are.
func TestGRPC_ConfigPeers(t *testing.T) {
	b := startNode(t, "c1", 0)
	b.append(t, "from b")
	a := startNodeWith(t, "c1", 0, func(c *grpcpeer.Config) { c.Peers = []string{b.addr} })
	testwait.Until(t, time.Minute, "a pulled b's op", sameVectors(a, b))
	if p := a.rep.Peers(); len(p) != 1 || p[0].Addr != b.addr || p[0].Direction != "outbound" {
		t.Fatalf("peers = %+v, want the configured one", p)
	}
}
