package lssync_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/simnet"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func fixedWall() time.Time { return t0 }

// pump delivers frames between two links until both are quiet, and
// returns the payload bytes that crossed, by frame kind.
func pump(t *testing.T, a, b *lssync.Link, out []*pb.Frame, now time.Time) map[string]int {
	t.Helper()
	bytes := map[string]int{}
	pumpEach(t, a, b, out, now, func(_ int, f *pb.Frame) { bytes[lssync.FrameKind(f)] += proto.Size(f) })
	return bytes
}

// pumpEach is pump calling seen with every frame before it is delivered,
// and the side that sent it (0: a, 1: b).
func pumpEach(t *testing.T, a, b *lssync.Link, out []*pb.Frame, now time.Time, seen func(from int, f *pb.Frame)) {
	t.Helper()
	links := [2]*lssync.Link{a, b}
	queue := [2][]*pb.Frame{out, nil} // frames to deliver to the other side
	for len(queue[0])+len(queue[1]) > 0 {
		for from := range 2 {
			frames := queue[from]
			queue[from] = nil
			for _, f := range frames {
				seen(from, f)
				reply, err := links[1-from].Handle(context.Background(), f, now)
				if err != nil {
					t.Fatalf("handle %s: %v", lssync.FrameKind(f), err)
				}
				queue[1-from] = append(queue[1-from], reply...)
			}
		}
	}
}

// logWithOrigins returns a log holding one op of each of n origins.
func logWithOrigins(t testing.TB, id string, n int) *simnet.MemLog {
	t.Helper()
	l := simnet.NewMemLog(id, fixedWall)
	var b store.Batch
	for i := range n {
		origin := fmt.Sprintf("rep_%032x", i)
		b.Ops = append(b.Ops, store.Op{Event: store.Event{
			ID: "evt_" + origin, OriginReplica: origin, OriginSeq: 1, HLC: "1.0", Type: "note",
		}})
	}
	if _, err := l.ApplyBatch(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestLink_IdleRoundBytes: an idle round costs the same bytes for 10 and
// 1,000 origins, and stays within 128 bytes including gRPC's 5-byte
// message prefixes.
func TestLink_IdleRoundBytes(t *testing.T) {
	var sizes []int
	for _, n := range []int{10, 1000} {
		cfg := lssync.DefaultConfig("c")
		a := lssync.NewLink(cfg, logWithOrigins(t, "rep_a", n), true)
		b := lssync.NewLink(cfg, logWithOrigins(t, "rep_b", n), false)
		b.Open(t0)
		pump(t, a, b, a.Open(t0), t0) // handshake and first round
		now := t0.Add(cfg.SyncInterval)
		out, err := a.Tick(now)
		if err != nil {
			t.Fatal(err)
		}
		bytes := pump(t, a, b, out, now)
		total := bytes["digest"] + bytes["digest_reply"]
		if len(bytes) != 2 {
			t.Fatalf("%d origins: idle round sent %v, want only digest and digest_reply", n, bytes)
		}
		wire := total + 2*5
		t.Logf("%d origins: idle round %d payload bytes, %d with gRPC message prefixes", n, total, wire)
		if wire > 128 {
			t.Errorf("%d origins: idle round is %d bytes, want <= 128", n, wire)
		}
		sizes = append(sizes, total)
	}
	if sizes[0] != sizes[1] {
		t.Errorf("idle round bytes differ: %d for 10 origins, %d for 1000", sizes[0], sizes[1])
	}
}

func TestLink_HandshakeRefusals(t *testing.T) {
	hello := func(cluster string, version uint32, id string) *pb.Frame {
		return &pb.Frame{Kind: &pb.Frame_Hello{Hello: &pb.Hello{
			ClusterId: cluster, ProtocolVersion: version, ReplicaId: id, SentUnixNanos: 1,
		}}}
	}
	tests := []struct {
		name  string
		frame *pb.Frame
		want  error
	}{
		{"other cluster", hello("c2", lssync.ProtocolVersion, "rep_b"), lssync.ErrClusterMismatch},
		{"other version", hello("c1", lssync.ProtocolVersion+1, "rep_b"), lssync.ErrProtocolVersion},
		{"itself", hello("c1", lssync.ProtocolVersion, "rep_a"), lssync.ErrSelfConnection},
		{"no replica id", hello("c1", lssync.ProtocolVersion, ""), lssync.ErrProtocol},
		{"data before hello", &pb.Frame{Kind: &pb.Frame_Pull{Pull: &pb.Pull{Id: 1}}}, lssync.ErrProtocol},
		{"empty frame", &pb.Frame{}, lssync.ErrProtocol},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := lssync.NewLink(lssync.DefaultConfig("c1"), simnet.NewMemLog("rep_a", fixedWall), false)
			l.Open(t0)
			out, err := l.Handle(context.Background(), tc.frame, t0)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if len(out) != 0 {
				t.Fatalf("refused link sent %d frames", len(out))
			}
		})
	}
}

func TestLink_HandshakeTimeout(t *testing.T) {
	cfg := lssync.DefaultConfig("c1")
	l := lssync.NewLink(cfg, simnet.NewMemLog("rep_a", fixedWall), true)
	l.Open(t0)
	if _, err := l.Tick(t0.Add(cfg.RoundTimeout)); err != nil {
		t.Fatalf("tick at the timeout: %v", err)
	}
	if _, err := l.Tick(t0.Add(cfg.RoundTimeout + time.Millisecond)); !errors.Is(err, lssync.ErrHandshakeTimeout) {
		t.Fatalf("err = %v, want ErrHandshakeTimeout", err)
	}
}

// TestLink_ClockOffsetErrorBar: a slow answer is not a skewed clock. The
// listener's clock is right, but its answer reaches the dialer 2.7 s after
// the hello (a stalled or loaded process), so the measured offset is off by
// up to half the round trip; neither end reports a skew.
func TestLink_ClockOffsetErrorBar(t *testing.T) {
	cfg := lssync.DefaultConfig("c1")
	a := lssync.NewLink(cfg, simnet.NewMemLog("rep_a", fixedWall), true)
	b := lssync.NewLink(cfg, simnet.NewMemLog("rep_b", fixedWall), false)
	b.Open(t0)
	hello := a.Open(t0)
	reply, err := b.Handle(context.Background(), hello[0], t0.Add(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	const rtt = 2700 * time.Millisecond
	confirm, err := a.Handle(context.Background(), reply[0], t0.Add(rtt))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Handle(context.Background(), confirm[0], t0.Add(rtt+time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	as, bs := a.Status(nil), b.Status(nil)
	if as.RTT != rtt || as.ClockOffset.Abs() <= cfg.MaxClockOffset || as.ClockSkewed {
		t.Errorf("dialer status = %+v, want rtt %s, a measured offset beyond the bound, not skewed", as, rtt)
	}
	if bs.ClockSkewed {
		t.Errorf("listener status = %+v, want not skewed", bs)
	}
}

// TestLink_ClockOffset: the dialer measures the listener's offset at the
// handshake and passes it on, so both ends report it (with opposite signs).
func TestLink_ClockOffset(t *testing.T) {
	cfg := lssync.DefaultConfig("c1")
	a := lssync.NewLink(cfg, simnet.NewMemLog("rep_a", fixedWall), true)
	b := lssync.NewLink(cfg, simnet.NewMemLog("rep_b", fixedWall), false)
	const skew = 3 * time.Second
	b.Open(t0.Add(skew))
	hello := a.Open(t0)
	reply, err := b.Handle(context.Background(), hello[0], t0.Add(skew+time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	confirm, err := a.Handle(context.Background(), reply[0], t0.Add(2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Handle(context.Background(), confirm[0], t0.Add(skew+3*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	as, bs := a.Status(nil), b.Status(nil)
	if as.ClockOffset != skew || as.RTT != 2*time.Millisecond || !as.ClockSkewed {
		t.Errorf("dialer status = %+v, want offset %s, rtt 2ms, skewed", as, skew)
	}
	if bs.ClockOffset != -skew || !bs.ClockSkewed {
		t.Errorf("listener status = %+v, want offset %s, skewed", bs, -skew)
	}
}
