package store

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Benchmarks of the coordination views (awaiting, claims, cycles, search)
// and of what the search index costs the writes:
//
//	go test -run '^$' -bench 'Awaiting|Search|Cycles|ClaimConflicts' -benchtime=... ./store/

// BenchmarkSearchIndexCost holds the writes with the search index to the
// same writes without it (Config.noSearchIndex), in alternating rounds in
// one process: 32-goroutine appends (op=append) and ApplyBatch of fleet
// events in batches of 5000 (op=apply). ratio-% is the indexed rate as a
// percentage of the unindexed one. One op is one write on each side.
func BenchmarkSearchIndexCost(b *testing.B) {
	open := func(b *testing.B, replica string, index bool) *Store {
		s, err := Open(context.Background(), Config{Dir: b.TempDir(), ReplicaID: replica, Metrics: prometheus.NewRegistry(), noSearchIndex: !index})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	charged := func(b *testing.B, s *Store, write func(n int) time.Duration) func(int, bool) time.Duration {
		return func(n int, last bool) time.Duration {
			t := write(n)
			if last {
				t += writeLaggingOwed(b, s)
			}
			return t
		}
	}
	b.Run("op=append", func(b *testing.B) {
		plain, indexed := open(b, repA, false), open(b, repA, true)
		runSides(b, "unindexed-appends/s", "appends/s",
			charged(b, plain, func(n int) time.Duration { return appendFrom(b, plain, 32, n) }),
			charged(b, indexed, func(n int) time.Duration { return appendFrom(b, indexed, 32, n) }))
	})
	b.Run("op=apply", func(b *testing.B) {
		plain, indexed := open(b, repD, false), open(b, repD, true)
		plainGen, indexedGen := newBenchGen(1), newBenchGen(1)
		runSides(b, "unindexed-events/s", "events/s",
			charged(b, plain, func(n int) time.Duration { return applyFrom(b, plain, plainGen, n) }),
			charged(b, indexed, func(n int) time.Duration { return applyFrom(b, indexed, indexedGen, n) }))
	})
}

// BenchmarkSearchUpkeep measures ways to keep the search index equal to
// the events on the raw insert of fleet rows (BenchmarkRawInsert's
// rows=fleet): none, an AFTER INSERT trigger on events, an INSERT per
// event beside it (per=event), and one INSERT ... SELECT of the
// transaction's rows before its commit (per=txn, what the store does),
// in transactions of 1000 rows and of 32 (a group commit of 32 callers).
// One op is one row.
func BenchmarkSearchUpkeep(b *testing.B) {
	for _, txn := range []int{rawRowsPerTxn, 32} {
		for _, mode := range []string{"none", "trigger", "per=event", "per=txn"} {
			b.Run(fmt.Sprintf("txn=%d/%s", txn, mode), func(b *testing.B) {
				raw := openRawBenchDBTxn(b, txn)
				if mode != "none" {
					if _, err := raw.db.Exec(searchDDL); err != nil {
						b.Fatal(err)
					}
				}
				switch mode {
				case "trigger":
					if _, err := raw.db.Exec(`CREATE TRIGGER bench_search AFTER INSERT ON events BEGIN
INSERT INTO lsnode_search(rowid, ` + searchColumns + `) VALUES (new.rowid, new.body, new.type, new.stream, new.room, new.from_agent, new.to_agent); END`); err != nil {
						b.Fatal(err)
					}
				case "per=event":
					st, err := raw.db.Prepare(`INSERT INTO lsnode_search(rowid, ` + searchColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?)`)
					if err != nil {
						b.Fatal(err)
					}
					raw.afterRow = func(tx *sql.Tx, rowid int64, e Event) error {
						_, err := tx.Stmt(st).Exec(rowid, e.Body, e.Type, e.Stream, e.Room, e.FromAgent, nullable(e.ToAgent))
						return err
					}
				case "per=txn":
					raw.beforeCommit = func(tx *sql.Tx, before int64) error { return indexSearch(context.Background(), tx, before) }
				}
				benchRawInsert(b, raw, newBenchGen(1).rows)
			})
		}
	}
}

// latencies runs call b.N times and reports its p50 and p99 latency and
// its CPU per call.
func latencies(b *testing.B, call func(i int)) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu0 := processCPU(b)
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		call(i)
		lat = append(lat, time.Since(t0))
	}
	cpu := processCPU(b) - cpu0
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/call")
}

// BenchmarkAwaiting runs Awaiting(agent) (a page of 50, 200 agents in
// turn) on the big log.
func BenchmarkAwaiting(b *testing.B) {
	s := bigLog(b, 0)
	ctx := context.Background()
	latencies(b, func(i int) {
		got, err := s.Awaiting(ctx, AwaitingQuery{Agent: benchAgent(i)})
		if err != nil {
			b.Fatal(err)
		}
		if len(got) == 0 {
			b.Fatal("nothing awaited: the log does not exercise Awaiting")
		}
	})
}

// BenchmarkSearch runs two-word searches (a page of 50) on the big log.
// words=together takes both words from one body of the log, outside the
// 100 most common words of the vocabulary (which, as "the" or "of" in
// text, are in a large part of the bodies; the bodies with fewer than two
// other words are passed over): a query that finds what it looks for. words=common takes them from the 20 most common words: the
// cost grows with the matches, and these match a large part of the log.
func BenchmarkSearch(b *testing.B) {
	common := func(rng *rand.Rand, _ *benchGen) string {
		return benchWords[rng.IntN(20)] + " " + benchWords[rng.IntN(20)]
	}
	for _, tc := range []struct {
		words string
		pick  func(*rand.Rand, *benchGen) string
		order string
	}{
		{"together", pairFromBody, SearchByRank},
		{"together", pairFromBody, SearchOldestFirst},
		{"common", common, SearchByRank},
	} {
		b.Run(fmt.Sprintf("words=%s/order=%s", tc.words, tc.order), func(b *testing.B) {
			s := bigLog(b, 0)
			rng := rand.New(rand.NewPCG(7, 7))
			gen := newBenchGen(2) // the big log's generator: its bodies are in the log
			queries := make([]string, b.N)
			for i := range queries {
				queries[i] = tc.pick(rng, gen)
			}
			hits := 0
			latencies(b, func(i int) {
				res, err := s.Search(context.Background(), SearchQuery{Query: queries[i], Order: tc.order})
				if err != nil {
					b.Fatal(err)
				}
				hits += len(res.Hits)
			})
			b.ReportMetric(float64(hits)/float64(b.N), "hits/call")
		})
	}
}

// pairFromBody picks two words of one of gen's next bodies that has two
// words outside the vocabulary's 100 most common.
func pairFromBody(rng *rand.Rand, gen *benchGen) string {
	for {
		var rare []string
		for _, w := range strings.Fields(gen.body()) {
			if slices.Index(benchWords, w) >= 100 && !slices.Contains(rare, w) {
				rare = append(rare, w)
			}
		}
		if len(rare) < 2 {
			continue
		}
		i, j := rng.IntN(len(rare)), rng.IntN(len(rare)-1)
		if j >= i {
			j++
		}
		return rare[i] + " " + rare[j]
	}
}

// BenchmarkCycles runs Cycles on the big log, whose 200 agents all wait
// on each other: the edges come from every owed row.
func BenchmarkCycles(b *testing.B) {
	s := bigLog(b, 0)
	latencies(b, func(int) {
		res, err := s.Cycles(context.Background(), CycleQuery{})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Cycles) != MaxCycles {
			b.Fatalf("%d cycles", len(res.Cycles))
		}
	})
}

// BenchmarkClaimConflicts counts the claim conflicts of the big log,
// whose agents write through four replicas alike, so that most claimed
// asks are in conflict: what a count of the lsnode_store_claim_conflicts
// gauge (at most one a minute) and of the agents roster costs.
func BenchmarkClaimConflicts(b *testing.B) {
	s := bigLog(b, 0)
	n := 0
	latencies(b, func(int) {
		counts, err := s.ClaimConflictCounts(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		n = 0
		for _, c := range counts {
			n += c
		}
	})
	b.ReportMetric(float64(n), "conflicts")
}
