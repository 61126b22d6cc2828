package grpcpeer_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/grpcpeer"
	"github.com/lsnode/lsnode/sync/simnet"
)

// countingListener counts every byte read and written on accepted conns.
type countingListener struct {
	net.Listener
	bytes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &l.bytes}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// benchPair runs a dialer and a listener Replicator over loopback gRPC.
type benchPair struct {
	dialer, listener *grpcpeer.Replicator
	lis              *countingListener
	reg              *prometheus.Registry // the listener's
	stop             func()
}

func newBenchPair(tb testing.TB, cfg grpcpeer.Config, dialerLog, listenerLog lssync.Log) *benchPair {
	tb.Helper()
	return newBenchPairOf(tb, cfg, cfg, dialerLog, listenerLog)
}

// newBenchPairOf is newBenchPair with a config per end.
func newBenchPairOf(tb testing.TB, cfg, lcfg grpcpeer.Config, dialerLog, listenerLog lssync.Log) *benchPair {
	tb.Helper()
	reg := prometheus.NewRegistry()
	lcfg.Metrics = reg
	listener, err := grpcpeer.NewReplicator(lcfg, listenerLog)
	if err != nil {
		tb.Fatal(err)
	}
	dialer, err := grpcpeer.NewReplicator(cfg, dialerLog)
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	lis := &countingListener{Listener: raw}
	srv := grpc.NewServer(listener.ServerOptions()...)
	listener.RegisterGRPC(srv)
	var wg sync.WaitGroup
	wg.Go(func() { _ = srv.Serve(lis) })
	ctx := context.Background()
	if err := listener.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	if err := dialer.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	if err := dialer.AddPeer(raw.Addr().String()); err != nil {
		tb.Fatal(err)
	}
	return &benchPair{dialer: dialer, listener: listener, lis: lis, reg: reg, stop: func() {
		dialer.Stop()
		listener.Stop()
		srv.Stop()
		wg.Wait()
	}}
}

// counter reads a counter of the listener's registry.
func (p *benchPair) counter(name, label, value string) float64 {
	mfs, _ := p.reg.Gather()
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					total += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total
}

// logWithOrigins returns an in-memory log holding one op of each of n
// origins, its clock fixed.
func logWithOrigins(tb testing.TB, id string, n int) *simnet.MemLog {
	tb.Helper()
	l := simnet.NewMemLog(id, func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) })
	var batch store.Batch
	for i := range n {
		origin := fmt.Sprintf("rep_%032x", i)
		batch.Ops = append(batch.Ops, store.Op{Event: store.Event{
			ID: "evt_" + origin, OriginReplica: origin, OriginSeq: 1, HLC: "1.0", Type: "note",
		}})
	}
	if _, err := l.ApplyBatch(context.Background(), batch); err != nil {
		tb.Fatal(err)
	}
	return l
}

// BenchmarkIdleRound measures the TCP bytes (HTTP/2 and gRPC framing
// included) of one idle anti-entropy round between in-sync peers, for 10
// and 1,000 origins. One op is one round.
func BenchmarkIdleRound(b *testing.B) {
	for _, origins := range []int{10, 1000} {
		b.Run(fmt.Sprintf("origins=%d", origins), func(b *testing.B) {
			cfg := grpcpeer.DefaultConfig("bench")
			cfg.SyncInterval = 2 * time.Millisecond
			cfg.TickInterval = time.Millisecond
			p := newBenchPair(b, cfg, logWithOrigins(b, "rep_a", origins), logWithOrigins(b, "rep_b", origins))
			defer p.stop()
			rounds := func() float64 { return p.counter("lsnode_sync_rounds_total", "result", "match") }
			testwait.Until(b, 10*time.Second, "three matching rounds", func() bool { return rounds() >= 3 })
			startRounds, startBytes := rounds(), p.lis.bytes.Load()
			startPayload := p.counter("lsnode_sync_frame_bytes_total", "kind", "digest") +
				p.counter("lsnode_sync_frame_bytes_total", "kind", "digest_reply")
			b.ResetTimer()
			testwait.Until(b, time.Minute, "b.N more matching rounds", func() bool { return rounds() >= startRounds+float64(b.N) },
				testwait.Every(time.Millisecond)) // timed
			b.StopTimer()
			n := rounds() - startRounds
			payload := p.counter("lsnode_sync_frame_bytes_total", "kind", "digest") +
				p.counter("lsnode_sync_frame_bytes_total", "kind", "digest_reply") - startPayload
			b.ReportMetric(float64(p.lis.bytes.Load()-startBytes)/n, "wire-B/round")
			b.ReportMetric(payload/n, "payload-B/round")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// catchUpSource is a store filled once per size and shared by benchmarks.
var catchUpSources sync.Map // int -> *store.Store

func catchUpSource(b *testing.B, n int) *store.Store {
	if v, ok := catchUpSources.Load(n); ok {
		return v.(*store.Store)
	}
	st, err := store.Open(context.Background(), store.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	var failed atomic.Value
	per := n / 32
	for w := range 32 {
		wg.Go(func() {
			for i := range per {
				_, err := st.Append(context.Background(), store.AppendInput{
					Type: "note", Stream: "bench", Room: "main", FromAgent: fmt.Sprintf("w%d@1", w), ToAgent: "*",
					Body: fmt.Sprintf("event %d of worker %d: %080d", i, w, i),
				})
				if err != nil {
					failed.Store(err)
				}
			}
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	catchUpSources.Store(n, st)
	return st
}

func emptyStore(b *testing.B) *store.Store {
	st, err := store.Open(context.Background(), store.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkCatchUp compares the catch-up of N events into an empty node
// over loopback gRPC (sync) with applying the same ops straight into an
// empty store in batches of 500 (raw_apply): the cost of replication over
// the store's own apply. One op is one full catch-up.
func BenchmarkCatchUp(b *testing.B) {
	for _, n := range []int{2048, 16384} {
		b.Run(fmt.Sprintf("events=%d/sync", n), func(b *testing.B) {
			src := catchUpSource(b, n)
			want := src.VersionVector()
			for range b.N {
				b.StopTimer()
				dst := emptyStore(b)
				b.StartTimer()
				p := newBenchPair(b, grpcpeer.DefaultConfig("bench"), lssync.StoreLog(dst), lssync.StoreLog(src))
				testwait.Until(b, 5*time.Minute, "the receiver to hold every op", func() bool { return dst.VersionVector()[src.ReplicaID()] == want[src.ReplicaID()] },
					testwait.Every(time.Millisecond)) // timed
				b.StopTimer()
				p.stop()
				dst.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
		b.Run(fmt.Sprintf("events=%d/raw_apply", n), func(b *testing.B) {
			src := catchUpSource(b, n)
			var batches []store.Batch
			for after := int64(0); ; {
				ops, err := src.OpsAfter(context.Background(), src.ReplicaID(), after, 500, 0)
				if err != nil {
					b.Fatal(err)
				}
				if len(ops) == 0 {
					break
				}
				batches = append(batches, store.Batch{Ops: ops})
				after = ops[len(ops)-1].Event.OriginSeq
			}
			for range b.N {
				b.StopTimer()
				dst := emptyStore(b)
				b.StartTimer()
				for _, batch := range batches {
					if _, err := dst.ApplyBatch(context.Background(), batch); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				dst.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
