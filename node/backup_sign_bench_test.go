package node

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/lsnode/lsnode/store"
)

// BenchmarkBackup_SignOwnOps measures what signing a node's own ops into
// a snapshot costs: LSNODE_BENCH_OWN_OPS own ops (default 20000) are
// appended, then each iteration takes a snapshot and reports the
// signatures stored and the time spent signing them.
func BenchmarkBackup_SignOwnOps(b *testing.B) {
	ctx := context.Background()
	total := 20000
	if v, err := strconv.Atoi(os.Getenv("LSNODE_BENCH_OWN_OPS")); err == nil && v > 0 {
		total = v
	}
	n := htStart(b, nil)
	const writers = 32
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w; i < total; i += writers {
				if _, err := n.store.Append(ctx, store.AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a",
					Body: "benchmark body " + strconv.Itoa(i)}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		path, info, err := n.store.Snapshot(ctx, n.integrity.SignCopy)
		if err != nil {
			b.Fatal(err)
		}
		if info.Signed != int64(total) {
			b.Fatalf("signed %d own ops, want %d", info.Signed, total)
		}
		b.ReportMetric(info.SignTook.Seconds(), "sign-s")
		b.ReportMetric(float64(info.Signed)/info.SignTook.Seconds(), "signatures/s")
		b.ReportMetric((info.Took - info.SignTook).Seconds(), "copy-s")
		if err := store.RemoveSnapshot(path); err != nil {
			b.Fatal(err)
		}
	}
}
