package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// TestTailCache_MatchesSQL builds random logs (local appends with
// artifacts, long and multi-byte bodies and metadata; ops of an lsnode
// peer and of a Python origin applied out of HLC order, with idempotent
// retries and refused ops among them) and compares, for random filters,
// every page the read cache answers with the SQL answer on the same
// state, before and after a restart. Budgets range from a few events
// (the window slides all the time) to the whole log.
func TestTailCache_MatchesSQL(t *testing.T) {
	for _, tc := range []struct {
		seed    uint64
		budget  int64
		warm    int // events read into the cache at the restart
		minHits int // pages the cache must answer for the comparison to mean something
	}{
		{1, 6 * tailEntryOverhead, 0, 20}, {2, 40 * tailEntryOverhead, 0, 100}, {3, 150 * tailEntryOverhead, 0, 300},
		{4, 1 << 30, 0, 600}, {5, 1 << 30, 7, 300},
	} {
		t.Run(fmt.Sprintf("seed=%d/budget=%d/warm=%d", tc.seed, tc.budget, tc.warm), func(t *testing.T) {
			runTailCacheVsSQL(t, tc.seed, tc.budget, tc.warm, tc.minHits)
		})
	}
}

func runTailCacheVsSQL(t *testing.T, seed uint64, budget int64, warm, minHits int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 99))
	dir := t.TempDir()
	wall := hlc.NewManualClock(testClockStart)
	s := openCached(t, dir, wall, budget, 0)
	peer, peerWall := openReplica(t, repB)
	py := &pyOrigin{replica: "rep_0123456789ab"}
	var pyOps []Op
	pyApplied := 0
	applyPy := func() { // what is new, and the op before it again (a replay)
		mustApply(t, s, Batch{Ops: pyOps[max(0, pyApplied-1):]})
		pyApplied = len(pyOps)
	}
	var hits, total int
	check := func(s *Store, rounds int) {
		all := allEventsBySeq(t, s)
		for i := 0; i < rounds; i++ {
			hit, err := compareTailWithSQL(ctx, s, randomFilter(rng, s, all))
			if err != nil {
				t.Fatal(err)
			}
			total++
			if hit {
				hits++
			}
		}
	}
	gen := func(steps int) {
		for i := 0; i < steps; i++ {
			wall.Advance(time.Duration(rng.IntN(2000)) * time.Millisecond)
			switch r := rng.IntN(10); {
			case r < 5:
				if _, err := s.Append(ctx, randomAppend(t, rng, s)); err != nil {
					t.Fatal(err)
				}
			case r < 7:
				peerWall.Advance(time.Duration(rng.IntN(5000)) * time.Millisecond)
				if _, err := peer.Append(ctx, randomAppend(t, rng, peer)); err != nil {
					t.Fatal(err)
				}
				if rng.IntN(3) == 0 {
					exchange(t, peer, s)
				}
			case r < 9:
				// A Python origin whose clock lags by up to a minute: its ops
				// arrive with stamps older than events already held.
				at := testClockStart.Add(time.Duration(len(pyOps)) * time.Second)
				pyOps = append(pyOps, py.next(rng, at, agentsFor(rng), agentsFor(rng), "c1", ""))
				if rng.IntN(2) == 0 {
					applyPy()
				}
			default:
				// A refused op: its slot is quarantined, nothing reaches the log.
				bad := py.next(rng, testClockStart, "a0", "a1", "", "")
				bad.Event.Type = "NOT A TYPE"
				pyOps = append(pyOps, bad)
				applyPy()
			}
			if i%10 == 0 {
				check(s, 20)
			}
		}
	}
	gen(250)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openCached(t, dir, wall, budget, warm) // warmed from the file's tail
	check(s, 300)
	gen(60)
	if st := s.TailCacheStats(); !st.Ready || (warm > 0 && st.Events <= warm) {
		t.Fatalf("cache not ready, or not grown past its warm bound %d, after restart and writes: %+v", warm, st)
	}
	t.Logf("%d of %d pages answered from the cache", hits, total)
	if hits < minHits {
		t.Fatalf("only %d of %d pages answered from the cache: the comparison tests little", hits, total)
	}
}

func openCached(t *testing.T, dir string, wall hlc.WallClock, budget int64, warm int) *Store {
	t.Helper()
	s, err := Open(context.Background(), Config{Dir: dir, ReplicaID: repA, Wall: wall, TailCacheBytes: budget, TailCacheWarmEvents: warm})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// compareTailWithSQL runs f through the cache and through SQL; hit
// reports that the cache answered.
func compareTailWithSQL(ctx context.Context, s *Store, f Filter) (hit bool, err error) {
	c, err := compileFilter(f)
	if err != nil {
		return false, nil // refused before either path runs
	}
	evs, cursor, ok := s.tail.list(c)
	if !ok {
		return false, nil
	}
	want, sqlErr := s.listSQL(ctx, c)
	if sqlErr != nil {
		return true, fmt.Errorf("filter %+v: the cache answered %d events, SQL failed: %v", f, len(evs), sqlErr)
	}
	got := ListResult{Events: previewed(c, evs), Cursor: cursor}
	if !reflect.DeepEqual(got, want) {
		return true, fmt.Errorf("filter %+v:\ncache %v %s\nsql   %v %s\nfirst difference: %s", f, ids(got.Events), got.Cursor,
			ids(want.Events), want.Cursor, firstEventDiff(got.Events, want.Events))
	}
	return true, nil
}

func firstEventDiff(a, b []Event) string {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return fmt.Sprintf("#%d\n  %+v\n  %+v", i, a[i], b[i])
		}
	}
	return "lengths or cursor"
}

func agentsFor(rng *rand.Rand) string { return fmt.Sprintf("a%d", rng.IntN(4)) }

func randomAppend(t *testing.T, rng *rand.Rand, s *Store) AppendInput {
	in := AppendInput{
		Type:      []string{"note", "task.request", "task.reply"}[rng.IntN(3)],
		Stream:    []string{"s1", "s2"}[rng.IntN(2)],
		Room:      []string{"r1", "r2"}[rng.IntN(2)],
		Topic:     []string{"", "t1"}[rng.IntN(2)],
		FromAgent: agentsFor(rng),
		ToAgent:   []string{"", "*", agentsFor(rng), agentsFor(rng)}[rng.IntN(4)],
		Status:    []string{"", "open", "applied", "claimed"}[rng.IntN(4)],
		Body:      strings.Repeat([]string{"x", "é", "日本"}[rng.IntN(3)], rng.IntN(260)),
	}
	if rng.IntN(2) == 0 {
		in.CorrelationID = fmt.Sprintf("c%d", rng.IntN(3))
	}
	if rng.IntN(3) == 0 {
		in.Metadata = json.RawMessage(fmt.Sprintf(`{"k": %d, "list": ["b", "a"]}`, rng.IntN(9)))
	}
	if rng.IntN(4) == 0 {
		in.IdempotencyKey = fmt.Sprintf("k%d", rng.IntN(20)) // retries return the earlier event, store nothing
	}
	for range rng.IntN(3) {
		w, err := s.PutArtifact(context.Background(), ArtifactInput{Kind: "note", Content: fmt.Sprint(rng.IntN(1000)), CreatedBy: in.FromAgent})
		if err != nil {
			t.Fatal(err)
		}
		in.ArtifactIDs = append(in.ArtifactIDs, w.Artifact.ID)
	}
	return in
}

// randomFilter draws a filter over the values the random logs use,
// anchored on random held events (in and below the window), with random
// cursors, bounds, orders, limits and previews.
func randomFilter(rng *rand.Rand, s *Store, all []Event) Filter {
	var f Filter
	pick := func(p int, vals ...string) string {
		if rng.IntN(p) != 0 {
			return ""
		}
		return vals[rng.IntN(len(vals))]
	}
	f.ToAgent = pick(2, "a0", "a1", "a2", "*")
	f.Stream = pick(4, "s1", "s2")
	f.Room = pick(6, "r1", "r2")
	f.Topic = pick(6, "t1")
	f.Type = pick(5, "note", "task.request", "task.reply")
	f.Writer = pick(6, "a0", "a1")
	f.CorrelationID = pick(6, "c0", "c1", "c2")
	f.Status = pick(6, "open", "applied")
	f.Order = pick(2, "asc", "desc")
	f.Limit = []int{0, 1, 2, 5, 50, 501}[rng.IntN(6)]
	f.Preview = rng.IntN(2) == 0
	f.Scope = randomScope(rng)
	if len(all) == 0 {
		return f
	}
	some := func() Event { return all[len(all)-1-rng.IntN(min(len(all), 80))] } // mostly recent, some older than small windows
	switch rng.IntN(8) {
	case 0:
		f.SinceEventID = some().ID
	case 1:
		f.BeforeEventID = some().ID
	case 2:
		f.SinceEventID, f.BeforeEventID = some().ID, some().ID
	case 3:
		f.AfterSeq = some().Seq
	case 4:
		vv := s.VersionVector()
		cur := map[string]int64{}
		for origin, top := range vv {
			if rng.IntN(4) != 0 {
				cur[origin] = max(0, top-int64(rng.IntN(30)))
			}
		}
		f.Cursor = EncodeCursor(cur)
	case 5:
		f.SinceCreatedAt = some().CreatedAt
	case 6:
		f.SinceEventID = "evt_not_held_here"
	}
	return f
}

// TestTailCache_GapUnreadies shows the cache refusing to guess: a
// committed event that does not take the next local seq (an event reached
// the log without passing the commit hook) leaves it unready, and List
// reads SQL from then on.
func TestTailCache_GapUnreadies(t *testing.T) {
	s, _ := openTestStore(t)
	e := mustAppend(t, s, note("a", "b"))
	if st := s.TailCacheStats(); !st.Ready || st.Events != 1 {
		t.Fatalf("after one append: %+v", st)
	}
	if _, _, ok := s.tail.list(mustCompile(t, Filter{ToAgent: "b"})); !ok {
		t.Fatal("the cache did not answer a page it holds")
	}
	skipped := e
	skipped.ID, skipped.Seq = "evt_20261130T120000_aaaaaaaaaaaa", e.Seq+2
	s.mu.Lock()
	s.tail.commit([]Op{{Event: skipped}}, s.mu.vv)
	s.mu.Unlock()
	if st := s.TailCacheStats(); st.Ready {
		t.Fatalf("a commit with a seq gap left the cache ready: %+v", st)
	}
	if _, _, ok := s.tail.list(mustCompile(t, Filter{ToAgent: "b"})); ok {
		t.Fatal("an unready cache answered")
	}
	res, err := s.List(context.Background(), Filter{ToAgent: "b"})
	if err != nil || len(res.Events) != 1 || res.Events[0].ID != e.ID {
		t.Fatalf("List after the gap = %v, %v; want the held event from SQL", res.Events, err)
	}
}

// TestTailCache_BudgetBoundsWindow checks that eviction keeps the
// accounted bytes within the budget and the indexes in step with the
// window.
func TestTailCache_BudgetBoundsWindow(t *testing.T) {
	const budget = 10 * tailEntryOverhead
	s := openCached(t, t.TempDir(), hlc.NewManualClock(testClockStart), budget, 0)
	for i := range 40 {
		mustAppend(t, s, note("a", fmt.Sprintf("to%d", i%3)))
		st := s.TailCacheStats()
		if st.Bytes > budget || st.Events == 0 || !st.Ready {
			t.Fatalf("after %d appends: %+v", i+1, st)
		}
	}
	tc := s.tail
	n := 0
	for _, l := range tc.byTo {
		for _, p := range l.live() {
			if p < tc.first() || p >= tc.end() {
				t.Fatalf("index position %d outside the window [%d, %d)", p, tc.first(), tc.end())
			}
			n++
		}
	}
	if n != len(tc.ents)-tc.head || len(tc.ids) != n {
		t.Fatalf("indexes hold %d positions and %d ids; the window %d events", n, len(tc.ids), len(tc.ents)-tc.head)
	}
}

func mustCompile(t *testing.T, f Filter) *compiled {
	t.Helper()
	c, err := compileFilter(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// BenchmarkTailCacheCommit measures what the commit hook adds to the
// writer: one op is one event fed to a cache with the default budget (full
// after about 100k of these events) in batches of 5000, as ApplyBatch
// commits them.
func BenchmarkTailCacheCommit(b *testing.B) {
	gen := newBenchGen(3)
	t := newTailCache(DefaultTailCacheBytes)
	t.reset()
	t.ready = true
	var batches [][]Op
	var vvs []map[string]int64
	vv := map[string]int64{}
	for done := 0; done < b.N; {
		ops := gen.batch(min(benchBatch, b.N-done)).Ops
		for i := range ops {
			done++
			ops[i].Event.Seq = int64(done)
			vv[ops[i].Event.OriginReplica] = ops[i].Event.OriginSeq
		}
		batches, vvs = append(batches, ops), append(vvs, copyVV(vv))
	}
	b.ResetTimer()
	cpu0 := processCPU(b)
	for i, ops := range batches {
		t.commit(ops, vvs[i])
	}
	b.StopTimer()
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/event")
	if !t.ready || t.oddOrigins != 0 {
		b.Fatalf("the cache left ready state or saw odd origins (%d)", t.oddOrigins)
	}
}
