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
	}, func(n int) time.Duration { return applyFrom(b, s, applyGen, n) })
}

// applyFrom applies n of gen's ops to s in batches of benchBatch and
// returns the time the applies took.
func applyFrom(b *testing.B, s *Store, gen *benchGen, n int) time.Duration {
	var took time.Duration
	for n > 0 {
		b.StopTimer()
		batch := gen.batch(min(benchBatch, n))
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
}

// runRatio alternates rounds of raw and store ops until each side has
// done b.N, and reports the rates and ratios. The store's last round also
// writes the owed rows still lagging (owedlag.go), so that the store side
// is charged for all the work its writes cause.
func runRatio(b *testing.B, s *Store, unit string, raw, store func(n int) time.Duration) {
	runSides(b, "raw-rows/s", unit, func(n int, _ bool) time.Duration { return raw(n) }, func(n int, last bool) time.Duration {
		t := store(n)
		if last {
			t += writeLaggingOwed(b, s)
		}
		return t
	})
}

// runSides alternates rounds of the base side and the measured side
// until each has done b.N ops (last is set on each side's last round),
// and reports both rates (baseUnit, unit), the measured side's rate as a
// percentage of the base's over all rounds (ratio-%) and the lowest and
// highest ratio of a round.
func runSides(b *testing.B, baseUnit, unit string, base, measured func(n int, last bool) time.Duration) {
	var baseTook, took time.Duration
	var ratios []float64
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(ratioRound, b.N-done)
		last := done+n == b.N
		r, st := base(n, last), measured(n, last)
		done += n
		baseTook += r
		took += st
		ratios = append(ratios, 100*r.Seconds()/st.Seconds())
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/baseTook.Seconds(), baseUnit)
	b.ReportMetric(float64(b.N)/took.Seconds(), unit)
	b.ReportMetric(100*baseTook.Seconds()/took.Seconds(), "ratio-%")
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
