package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The ratio benchmarks hold the store's write paths to the raw insert
// rate side by side: rounds of raw rows and of store writes alternate
// every few thousand ops, so whatever else the machine runs in a given
// second weighs on both. They report both rates, the ratio of the totals
// and the lowest and highest ratio of a round. One op is one store write
// (and one raw row).

// ratioRound is the number of ops of each side in a round.
const ratioRound = 6400

// BenchmarkAppendRatio: Append from 32 goroutines against raw rows of
// the same shape (BenchmarkRawInsert's rows=uniform).
func BenchmarkAppendRatio(b *testing.B) {
	raw := openRawBenchDB(b)
	s, err := Open(context.Background(), Config{Dir: b.TempDir(), Metrics: prometheus.NewRegistry()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rows := uniformRows()
	runRatio(b, s, "appends/s", func(n int) time.Duration {
		b.StopTimer()
		evs := rows(n)
		b.StartTimer()
		t, _ := raw.write(b, evs)
		return t
	}, func(n int) time.Duration { return appendFrom(b, s, 32, n) })
}

// BenchmarkApplyRatio: ApplyBatch in batches of 5000 against raw inserts
// of the very same events (two generators with one seed), the fleet rows
// of BenchmarkApplyBatch.
func BenchmarkApplyRatio(b *testing.B) {
	raw := openRawBenchDB(b)
	s, err := Open(context.Background(), Config{Dir: b.TempDir(), ReplicaID: repD})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rawGen, applyGen := newBenchGen(1), newBenchGen(1)
	runRatio(b, s, "events/s", func(n int) time.Duration {
		b.StopTimer()
		evs := rawGen.rows(n)
		b.StartTimer()
		t, _ := raw.write(b, evs)
		return t
	}, func(n int) time.Duration {
		var took time.Duration
		for n > 0 {
			b.StopTimer()
			batch := applyGen.batch(min(benchBatch, n))
			b.StartTimer()
			t0 := time.Now()
			res, err := s.ApplyBatch(context.Background(), batch)
			took += time.Since(t0)
			if err != nil {
				b.Fatal(err)
			}
			if res.Applied != len(batch.Ops) {
				b.Fatalf("applied %s of %d", fmtResult(res), len(batch.Ops))
			}
			n -= len(batch.Ops)
		}
		return took
	})
}

// runRatio alternates rounds of raw and store ops until each side has
// done b.N, and reports the rates and ratios. The store's last round also
// writes the owed rows still lagging (owedlag.go), so that the store side
// is charged for all the work its writes cause.
func runRatio(b *testing.B, s *Store, unit string, raw, store func(n int) time.Duration) {
	var rawTook, storeTook time.Duration
	var ratios []float64
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(ratioRound, b.N-done)
		r, st := raw(n), store(n)
		done += n
		if done == b.N {
			st += writeLaggingOwed(b, s)
		}
		rawTook += r
		storeTook += st
		ratios = append(ratios, 100*r.Seconds()/st.Seconds())
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/rawTook.Seconds(), "raw-rows/s")
	b.ReportMetric(float64(b.N)/storeTook.Seconds(), unit)
	b.ReportMetric(100*rawTook.Seconds()/storeTook.Seconds(), "ratio-%")
	b.ReportMetric(slices.Min(ratios), "min-round-%")
	b.ReportMetric(slices.Max(ratios), "max-round-%")
}

// writeLaggingOwed writes the store's lagging owed rows and returns the
// time it took.
func writeLaggingOwed(b *testing.B, s *Store) time.Duration {
	t0 := time.Now()
	writeOwedRows(b, s)
	return time.Since(t0)
}
