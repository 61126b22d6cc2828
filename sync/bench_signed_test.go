package lssync_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/integrity"
)

func benchIntegrity(b *testing.B, st *store.Store, policy integrity.UnsignedPolicy) *integrity.Integrity {
	b.Helper()
	in, err := integrity.New(context.Background(), integrity.Config{
		Self: st.ReplicaID(), Key: nodeKey(st.ReplicaID()), Policy: policy, Keys: st,
	})
	if err != nil {
		b.Fatal(err)
	}
	return in
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
				scfg := lssync.DefaultConfig("bench")
				scfg.Integrity = benchIntegrity(b, src, integrity.UnsignedAccept) // cold signature cache
				dst := emptyStore(b)
				dcfg := lssync.DefaultConfig("bench")
				in := benchIntegrity(b, dst, integrity.UnsignedRefuse)
				dcfg.Integrity = in
				b.StartTimer()
				p := newBenchPairOf(b, dcfg, scfg, lssync.StoreLog(dst), lssync.StoreLog(src))
				waitFor(b, 5*time.Minute, func() bool { return dst.VersionVector()[src.ReplicaID()] == want[src.ReplicaID()] })
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
