package grpcpeer_test

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/lsnode/lsnode/internal/testwait"
	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/proto/lsnode/v1/lsnodev1grpc"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// stalledPeer completes the handshake, asks to be pushed to (follow),
// then never reads again: its receive window fills up.
type stalledPeer struct {
	lsnodev1grpc.UnimplementedReplicationServer
}

func (stalledPeer) Session(stream grpc.BidiStreamingServer[pb.Frame, pb.Frame]) error {
	if _, err := stream.Recv(); err != nil {
		return err
	}
	hello := &pb.Hello{ClusterId: "c1", ProtocolVersion: lssync.ProtocolVersion, ReplicaId: "rep_stalled", SentUnixNanos: time.Now().UnixNano()}
	if err := stream.Send(&pb.Frame{Kind: &pb.Frame_Hello{Hello: hello}}); err != nil {
		return err
	}
	digest := &pb.Digest{Round: 1, Hash: make([]byte, lssync.DigestSize), Follow: true}
	if err := stream.Send(&pb.Frame{Kind: &pb.Frame_Digest{Digest: digest}}); err != nil {
		return err
	}
	<-stream.Context().Done()
	return nil
}

// TestGRPC_StalledPeerBlocksNothing: with one peer that stopped reading,
// appends go on, the stalled session's queue overflows (pushes dropped,
// counted) and a healthy peer keeps converging. The stall timeout is set
// beyond the test so that nothing here waits for it.
func TestGRPC_StalledPeerBlocksNothing(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.InitialWindowSize(64<<10), grpc.InitialConnWindowSize(64<<10))
	lsnodev1grpc.RegisterReplicationServer(srv, stalledPeer{})
	var wg sync.WaitGroup
	wg.Go(func() { _ = srv.Serve(lis) })
	t.Cleanup(func() { srv.Stop(); wg.Wait() })

	a := startNodeWith(t, "c1", 0, func(c *grpcpeer.Config) {
		c.StallTimeout = time.Hour
		c.PullWindow = 4
		c.OutboxBytes = c.PullWindow * c.BatchBytes // 4 MiB
	})
	b := startNode(t, "c1", 0)
	for _, addr := range []string{lis.Addr().String(), b.addr} {
		if err := a.rep.AddPeer(addr); err != nil {
			t.Fatal(err)
		}
	}
	testwait.Until(t, time.Minute, "healthy peer following", peerInState(a, b.addr, grpcpeer.StateFollowing))
	testwait.Until(t, time.Minute, "stalled peer connected", peerInState(a, lis.Addr().String(), grpcpeer.StateSyncing, grpcpeer.StateFollowing))
	body := strings.Repeat("x", 128<<10)
	start := time.Now()
	for i := range 48 { // 6 MiB of pushes: beyond the stalled peer's window and A's 4 MiB queue
		a.append(t, fmt.Sprintf("%d %s", i, body))
	}
	t.Logf("48 appends of 128 KiB in %s", time.Since(start))
	testwait.Until(t, time.Minute, "healthy peer converged", sameVectors(a, b))
	if got := counterValue(a.reg, "lsnode_sync_push_dropped_total"); got == 0 {
		t.Errorf("no push was dropped for the stalled peer")
	}
	if !peerInState(a, lis.Addr().String(), grpcpeer.StateSyncing, grpcpeer.StateFollowing)() {
		t.Errorf("stalled peer's session ended early: %+v", a.rep.Peers())
	}
}

func peerInState(n *testNode, addr string, states ...string) func() bool {
	return func() bool {
		for _, p := range n.rep.Peers() {
			if p.Addr == addr && slices.Contains(states, p.State) {
				return true
			}
		}
		return false
	}
}

func counterValue(reg *prometheus.Registry, name string) float64 {
	mfs, _ := reg.Gather()
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}
