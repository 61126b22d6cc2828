package grpcpeer_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/grpcpeer"
	"github.com/lsnode/lsnode/sync/integrity"
)

// nodeKey is a fixed key per replica id, so runs are repeatable.
func nodeKey(id string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("sim key " + id))
	return ed25519.NewKeyFromSeed(seed[:])
}

func benchIntegrity(tb testing.TB, st *store.Store, policy integrity.UnsignedPolicy) *integrity.Integrity {
	tb.Helper()
	in, err := integrity.New(context.Background(), integrity.Config{
		Self: st.ReplicaID(), Key: nodeKey(st.ReplicaID()), Policy: policy, Keys: st,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

// TestIntegrity_GRPCPipelined: over real gRPC sessions the reader
// goroutine verifies batches ahead of the loop (pipelined); every op is
// verified once, most of them ahead, and nothing is refused.
func TestIntegrity_GRPCPipelined(t *testing.T) {
	ctx := context.Background()
	open := func(id string) *store.Store {
		st, err := store.Open(ctx, store.Config{Dir: t.TempDir(), ReplicaID: id})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	src, dst := open("rep_111111111111111111111111111111aa"), open("rep_222222222222222222222222222222bb")
	scfg, dcfg := grpcpeer.DefaultConfig("c1"), grpcpeer.DefaultConfig("c1")
	scfg.Integrity = benchIntegrity(t, src, integrity.UnsignedRefuse)
	in := benchIntegrity(t, dst, integrity.UnsignedRefuse)
	dcfg.Integrity = in
	const n = 1200
	for i := range n {
		if _, err := src.Append(ctx, store.AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a@1", Body: fmt.Sprintf("op %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	p := newBenchPairOf(t, dcfg, scfg, lssync.StoreLog(dst), lssync.StoreLog(src))
	defer p.stop()
	testwait.Until(t, time.Minute, "the receiver to hold every op", func() bool { return dst.VersionVector()[src.ReplicaID()] == n })
	c := in.Counts()
	t.Logf("receiver: %+v", c)
	// The first batch may come before the handshake pinned the key
	// (checked by the loop); every later one is checked by the reader.
	if c.Verified != n || c.Refused != 0 || c.Preverified < n/2 {
		t.Errorf("receiver counts %+v: want %d verified, at least %d by the reader, none refused", c, n, n/2)
	}
}

// BenchmarkCatchUpSigned is BenchmarkCatchUp's sync case with origin
// integrity on both ends: the source signs every op it serves (a fresh
// Integrity each time, so no signature comes from its cache), the empty
// node verifies every one before applying it (unsigned origins refused,
// so nothing is applied unverified). Compare its events/s with
// BenchmarkCatchUp's sync and raw_apply from the same run.
func BenchmarkCatchUpSigned(b *testing.B) {
	for _, n := range []int{2048, 16384} {
		b.Run(fmt.Sprintf("events=%d/sync", n), func(b *testing.B) {
			src := catchUpSource(b, n)
			want := src.VersionVector()
			var verified int64
			for range b.N {
				b.StopTimer()
				scfg := grpcpeer.DefaultConfig("bench")
				scfg.Integrity = benchIntegrity(b, src, integrity.UnsignedAccept) // cold signature cache
				dst := emptyStore(b)
				dcfg := grpcpeer.DefaultConfig("bench")
				in := benchIntegrity(b, dst, integrity.UnsignedRefuse)
				dcfg.Integrity = in
				b.StartTimer()
				p := newBenchPairOf(b, dcfg, scfg, lssync.StoreLog(dst), lssync.StoreLog(src))
				testwait.Until(b, 5*time.Minute, "the receiver to hold every op", func() bool { return dst.VersionVector()[src.ReplicaID()] == want[src.ReplicaID()] },
					testwait.Every(time.Millisecond)) // timed
				b.StopTimer()
				p.stop()
				if c := in.Counts(); c.Refused != 0 {
					b.Fatalf("%d ops refused", c.Refused)
				}
				verified += in.Counts().Verified
				dst.Close()
				b.StartTimer()
			}
			if verified < int64(n)*int64(b.N) {
				b.Fatalf("verified %d ops, want at least %d", verified, int64(n)*int64(b.N))
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
