package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/lsnode/lsnode/hlc"
)

// Store benchmarks. Run them in one go so their ratios to the raw SQLite
// rate hold on a noisy machine:
//
//	go test -run '^$' -bench . -benchtime=... ./store/
//
// LSNODE_BENCH_EVENTS sets the size of the log that List and Owed run on
// and that ApplyBatch applies (default 1,000,000); the log is built once
// per process by ApplyBatch in a temp dir, or kept in LSNODE_BENCH_DIR and
// reused by later runs.

const benchBatch = 5000 // ApplyBatch batch size

func benchEvents() int {
	if n, err := strconv.Atoi(os.Getenv("LSNODE_BENCH_EVENTS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// BenchmarkRawInsert is the machine's limit (rawBenchDB): bare
// transactions of 1000 rows into a fresh file with the store's schema and
// indexes. One op is one row. rows=uniform inserts one row shape over and
// over (every index grows at its end), the shape BenchmarkAppend writes;
// rows=fleet inserts the rows BenchmarkApplyBatch applies (200 agents,
// thousands of threads: index inserts land all over each index).
// rows=uniform,txn=32 commits every 32 rows: what a group commit of 32
// waiting callers could reach if the store did nothing but insert.
func BenchmarkRawInsert(b *testing.B) {
	b.Run("rows=uniform", func(b *testing.B) { benchRawInsert(b, openRawBenchDB(b), uniformRows()) })
	b.Run("rows=uniform,txn=32", func(b *testing.B) { benchRawInsert(b, openRawBenchDBTxn(b, 32), uniformRows()) })
	b.Run("rows=fleet", func(b *testing.B) { benchRawInsert(b, openRawBenchDB(b), newBenchGen(1).rows) })
}

func benchRawInsert(b *testing.B, raw *rawBenchDB, rows func(n int) []Event) {
	var elapsed, cpu time.Duration
	b.ResetTimer()
	for done := 0; done < b.N; {
		b.StopTimer()
		evs := rows(min(raw.perTxn, b.N-done))
		b.StartTimer()
		t, c := raw.write(b, evs)
		elapsed += t
		cpu += c
		done += len(evs)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkAppend measures local appends from 1 and from 32 goroutines
// (group commit); one op is one append. wal-frames/commit is what a commit
// wrote to the WAL over the WAL's last generation (walstats_test.go).
func BenchmarkAppend(b *testing.B) {
	for _, workers := range []int{1, 32} {
		b.Run(fmt.Sprintf("goroutines=%d", workers), func(b *testing.B) {
			reg := prometheus.NewRegistry()
			dir := b.TempDir()
			s, err := Open(context.Background(), Config{Dir: dir, Metrics: reg})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ResetTimer()
			cpu0 := processCPU(b)
			elapsed := appendFrom(b, s, workers, b.N) + writeLaggingOwed(b, s)
			reportCPU(b, cpu0)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "appends/s")
			b.ReportMetric(meanBatchSize(b, s), "writes/commit")
			reportWALStats(b, s, dir)
		})
	}
}

// BenchmarkAppendPaced appends at a steady rate, the load of a node in a
// mesh rather than the 32 callers of BenchmarkAppend that always wait:
// LSNODE_BENCH_PACE appends/s in all (default 1500, the rate of the
// 3 x 500/s replication bench), each started on schedule in its own
// goroutine whether or not earlier ones returned (open loop). One op is
// one append; it reports the CPU per append, the writes per commit and
// the append latency.
func BenchmarkAppendPaced(b *testing.B) {
	rate := 1500
	if n, err := strconv.Atoi(os.Getenv("LSNODE_BENCH_PACE")); err == nil && n > 0 {
		rate = n
	}
	for _, tc := range []struct {
		name   string
		linger time.Duration
	}{{"linger=off", -1}, {"linger=on", 0}} {
		b.Run(tc.name, func(b *testing.B) { benchAppendPaced(b, rate, tc.linger) })
	}
}

func benchAppendPaced(b *testing.B, rate int, linger time.Duration) {
	s, err := Open(context.Background(), Config{Dir: b.TempDir(), Metrics: prometheus.NewRegistry(), CommitLinger: linger})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	lat := make([]time.Duration, b.N)
	errs := make(chan error, b.N)
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(rate)
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU(b)
	for i := 0; i < b.N; i++ {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			_, err := s.Append(ctx, AppendInput{Type: "note", Stream: "project/x", Room: "r",
				FromAgent: fmt.Sprintf("agent-%d", i%3), ToAgent: "agent-0", Status: "open", Body: "body"})
			lat[i] = time.Since(t0)
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	reportCPU(b, cpu0)
	b.StopTimer()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
	b.ReportMetric(meanBatchSize(b, s), "writes/commit")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkApplyBatch applies synthetic remote ops in batches of 5000 into
// a fresh store; one op is one event.
func BenchmarkApplyBatch(b *testing.B) {
	s, err := Open(context.Background(), Config{Dir: b.TempDir(), ReplicaID: repD})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	gen := newBenchGen(1)
	b.ResetTimer()
	var applyTime, applyCPU time.Duration
	for done := 0; done < b.N; {
		b.StopTimer()
		batch := gen.batch(min(benchBatch, b.N-done))
		b.StartTimer()
		t0, cpu0 := time.Now(), processCPU(b)
		res, err := s.ApplyBatch(context.Background(), batch)
		applyTime += time.Since(t0)
		applyCPU += processCPU(b) - cpu0
		if err != nil {
			b.Fatal(err)
		}
		if res.Applied != len(batch.Ops) {
			b.Fatalf("applied %s of %d", fmtResult(res), len(batch.Ops))
		}
		done += len(batch.Ops)
	}
	cpu0 := processCPU(b)
	applyTime += writeLaggingOwed(b, s)
	applyCPU += processCPU(b) - cpu0
	b.ReportMetric(float64(b.N)/applyTime.Seconds(), "events/s")
	b.ReportMetric(float64(applyCPU.Microseconds())/float64(b.N), "cpu-µs/op")
}

// reportCPU reports the process's CPU time per op since since: on a shared
// machine it is steadier than the rate, which is whatever share of the
// cores the other load leaves the benchmark.
func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64((processCPU(b)-since).Microseconds())/float64(b.N), "cpu-µs/op")
}

// meanBatchSize is the mean number of writes that shared a commit.
func meanBatchSize(b *testing.B, s *Store) float64 {
	var m dto.Metric
	if err := s.metrics.batchSize.Write(&m); err != nil {
		b.Fatal(err)
	}
	h := m.GetHistogram()
	if h.GetSampleCount() == 0 {
		return 0
	}
	return h.GetSampleSum() / float64(h.GetSampleCount())
}

// BenchmarkList runs List(limit=50, to_agent=X) on the big log, answered
// by the read cache (cache=on, the default budget) and by SQL (cache=off).
func BenchmarkList(b *testing.B) {
	for _, tc := range []struct {
		name   string
		budget int64
	}{{"cache=on", 0}, {"cache=off", -1}} {
		b.Run(tc.name, func(b *testing.B) {
			s := bigLog(b, tc.budget)
			ctx := context.Background()
			b.ResetTimer()
			start, cpu0 := time.Now(), processCPU(b)
			for i := 0; i < b.N; i++ {
				res, err := s.List(ctx, Filter{ToAgent: benchAgent(i), Limit: 50})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Events) != 50 {
					b.Fatalf("%d events", len(res.Events))
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
			b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/call")
		})
	}
}

// BenchmarkTailCacheWarm opens the big log with the default read cache
// budget warmed up to the budget (not the default warm bound), so it
// shows the cache full; one op is one Open. It reports the cache's
// events, its accounted bytes and the heap the open added (after a GC,
// with the store still open). Run it with -benchtime=1x.
func BenchmarkTailCacheWarm(b *testing.B) {
	bigLog(b, -1).Close() // build the log first, outside the timing
	dir := bigLogDir()
	var st TailCacheStats
	var heap uint64
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, err := Open(context.Background(), Config{Dir: dir, ReplicaID: repD, TailCacheWarmEvents: -1})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		st, heap = s.TailCacheStats(), after.HeapAlloc-before.HeapAlloc
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	if !st.Ready {
		b.Fatalf("cache not ready: %+v", st)
	}
	b.ReportMetric(float64(st.Events), "events")
	b.ReportMetric(float64(st.Bytes)/(1<<20), "accounted-MiB")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
}

// BenchmarkOwed runs Owed(agent) (a page of 50) on the big log and
// reports the 99th percentile latency: with the read caches (cache=on;
// calls after the first for an agent find its old owed events in the
// event cache) and without (cache=off; every event read from SQLite).
func BenchmarkOwed(b *testing.B) {
	for _, tc := range []struct {
		name   string
		budget int64
	}{{"cache=on", 0}, {"cache=off", -1}} {
		b.Run(tc.name, func(b *testing.B) {
			s := bigLog(b, tc.budget)
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			start, cpu0 := time.Now(), processCPU(b)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				evs, err := s.Owed(ctx, benchAgent(i), "", 50)
				lat = append(lat, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				if len(evs) == 0 {
					b.Fatal("nothing owed: the log does not exercise Owed")
				}
			}
			elapsed, cpu := time.Since(start), processCPU(b)-cpu0
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/call")
		})
	}
}

// processCPU is the CPU time (user and system) the process has used: on
// a machine shared with other work, CPU per call is what the code costs,
// where wall time also counts the waits for a core.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const benchAgents = 200

func benchAgent(i int) string { return fmt.Sprintf("agent-%d", (i*7919)%benchAgents) }

var bigLogOnce struct {
	sync.Once
	dir     string // removed at exit
	keptDir string // LSNODE_BENCH_DIR: kept
	n       int
	err     error
}

// bigLogDir is where the shared big log lives.
func bigLogDir() string {
	if bigLogOnce.keptDir != "" {
		return bigLogOnce.keptDir
	}
	return bigLogOnce.dir
}

// bigLog opens the shared big log with a read cache budget (as
// Config.TailCacheBytes), building it at the first call of the process.
// The dir lives for the process (TestMain removes it).
func bigLog(b *testing.B, cacheBytes int64) *Store {
	b.Helper()
	bigLogOnce.Do(func() {
		bigLogOnce.n = benchEvents()
		if keep := os.Getenv("LSNODE_BENCH_DIR"); keep != "" {
			// A kept log, reused across runs while its size matches; delete
			// it after a schema change.
			if _, err := os.Stat(filepath.Join(keep, DBFile)); err == nil {
				bigLogOnce.keptDir = keep
				return
			}
			bigLogOnce.keptDir = keep
			bigLogOnce.dir = keep
		} else if bigLogOnce.dir, bigLogOnce.err = os.MkdirTemp("", "lsnode-store-bench-"); bigLogOnce.err != nil {
			return
		}
		start := time.Now()
		s, err := Open(context.Background(), Config{Dir: bigLogOnce.dir, ReplicaID: repD, TailCacheBytes: -1})
		if err != nil {
			bigLogOnce.err = err
			return
		}
		gen := newBenchGen(2)
		for done := 0; done < bigLogOnce.n; {
			batch := gen.batch(min(benchBatch, bigLogOnce.n-done))
			if _, err := s.ApplyBatch(context.Background(), batch); err != nil {
				bigLogOnce.err = err
				break
			}
			done += len(batch.Ops)
		}
		if err := s.Close(); err != nil && bigLogOnce.err == nil {
			bigLogOnce.err = err
		}
		took := time.Since(start)
		fmt.Fprintf(os.Stderr, "store bench: built a %d-event log by ApplyBatch (batches of %d) in %v: %.0f events/s\n",
			bigLogOnce.n, benchBatch, took.Round(time.Second), float64(bigLogOnce.n)/took.Seconds())
	})
	if bigLogOnce.err != nil {
		b.Fatal(bigLogOnce.err)
	}
	dir := bigLogDir()
	s, err := Open(context.Background(), Config{Dir: dir, ReplicaID: repD, TailCacheBytes: cacheBytes})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if n := s.VersionVector(); sumVV(n) != int64(bigLogOnce.n) {
		b.Fatalf("the log in %s holds %d events; LSNODE_BENCH_EVENTS is %d", dir, sumVV(n), bigLogOnce.n)
	}
	return s
}

func sumVV(vv map[string]int64) int64 {
	var n int64
	for _, v := range vv {
		n += v
	}
	return n
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bigLogOnce.dir != "" && bigLogOnce.keptDir == "" {
		os.RemoveAll(bigLogOnce.dir)
	}
	os.Exit(code)
}

// benchGen makes remote ops as a busy fleet writes them: four origins,
// 200 agents, asks in correlation threads, replies (a third of them
// terminal, closing threads), acks, 2% broadcasts, bodies of 6 to 14
// words drawn from benchWords with Zipf's law (so some words are in most
// bodies and most words in few, as in text).
type benchGen struct {
	rng     *rand.Rand
	words   *rand.Zipf // word ranks for the bodies, from a source of their own
	origins []string
	seq     map[string]int64
	ms      int64
	n       int
}

func newBenchGen(seed uint64) *benchGen {
	return &benchGen{rng: rand.New(rand.NewPCG(seed, seed)), origins: []string{repA, repB, repC, "rep_0123456789ab"},
		words: rand.NewZipf(rand.New(rand.NewPCG(seed, ^seed)), 1.1, 1, uint64(len(benchWords)-1)),
		seq:   map[string]int64{}, ms: testClockStart.UnixMilli() - 30*24*3600*1000}
}

// benchWords is the vocabulary of the bench bodies: 5000 made-up words of
// 3 to 9 lowercase letters, the most common first.
var benchWords = func() []string {
	rng := rand.New(rand.NewPCG(42, 42))
	seen := map[string]bool{}
	var out []string
	for len(out) < 5000 {
		w := make([]byte, 3+rng.IntN(7))
		for i := range w {
			w[i] = byte('a' + rng.IntN(26))
		}
		if !seen[string(w)] {
			seen[string(w)] = true
			out = append(out, string(w))
		}
	}
	return out
}()

// body is the next bench body.
func (g *benchGen) body() string {
	n := 6 + int(g.words.Uint64()%9)
	words := make([]string, n)
	for i := range words {
		words[i] = benchWords[g.words.Uint64()]
	}
	return strings.Join(words, " ")
}

func (g *benchGen) batch(n int) Batch {
	ops := make([]Op, 0, n)
	for i := 0; i < n; i++ {
		g.n++
		g.ms += int64(g.rng.IntN(3))
		origin := g.origins[g.n%len(g.origins)]
		prev := g.seq[origin]
		g.seq[origin] = prev + 1
		from, to := g.rng.IntN(benchAgents), g.rng.IntN(benchAgents)
		toAgent := fmt.Sprintf("agent-%d", to)
		if g.rng.IntN(50) == 0 {
			toAgent = "*"
		}
		corr := fmt.Sprintf("c-%d-%d", from, g.rng.IntN(20))
		status, typ, meta := "open", "task.request", "{}"
		switch r := g.rng.IntN(10); {
		case r < 3: // a terminal reply from the addressee of an earlier ask in the thread
			status, typ = []string{"applied", "failed", "blocked", "superseded"}[g.rng.IntN(4)], "task.reply"
			corr = fmt.Sprintf("c-%d-%d", to, g.rng.IntN(20))
		case r < 5:
			status, typ = []string{"claimed", "ready", ""}[g.rng.IntN(3)], "note"
		}
		at := time.UnixMilli(g.ms).UTC()
		ops = append(ops, Op{PrevSeq: prev, Event: Event{
			ID: fmt.Sprintf("evt_%s_%012x", at.Format("20060102T150405"), g.n), OriginReplica: origin, OriginSeq: prev + 1,
			HLC: hlc.Timestamp{WallMS: g.ms, Counter: uint32(g.n % 16), Replica: origin}.String(), Type: typ,
			Stream: "project/x", Room: "delegation", FromAgent: fmt.Sprintf("agent-%d", from), ToAgent: toAgent,
			CorrelationID: corr, Status: status, Body: g.body(), CreatedAt: createdAt(at),
			Metadata: []byte(meta),
		}})
	}
	return Batch{Ops: ops}
}

// rows is the events of the next n ops, for the raw inserts.
func (g *benchGen) rows(n int) []Event {
	ops := g.batch(n).Ops
	evs := make([]Event, len(ops))
	for i, op := range ops {
		evs[i] = op.Event
	}
	return evs
}
