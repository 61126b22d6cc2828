package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// TestCursor_PagingWhileWriting follows several readers, each paging one
// random filter with the portable cursor, while the log grows under them:
// local appends, a peer's ops, and a Python origin's ops stamped older
// than events already held, with restarts between pages. Pages come from
// the read cache or from SQL (small budgets), some cut at the size bound.
// When the writes stop and every reader has drained, each must have seen
// every event its filter matches exactly once.
func TestCursor_PagingWhileWriting(t *testing.T) {
	for _, tc := range []struct {
		seed      uint64
		budget    int64
		pageBytes int
	}{
		{11, 8 * tailEntryOverhead, 0}, {12, 60 * tailEntryOverhead, 3000}, {13, 1 << 30, 2000}, {14, 1 << 30, 0},
	} {
		t.Run(fmt.Sprintf("seed=%d/budget=%d/page=%d", tc.seed, tc.budget, tc.pageBytes), func(t *testing.T) {
			runPagingWhileWriting(t, tc.seed, tc.budget, tc.pageBytes)
		})
	}
}

func runPagingWhileWriting(t *testing.T, seed uint64, budget int64, pageBytes int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 5))
	dir := t.TempDir()
	wall := hlc.NewManualClock(testClockStart)
	open := func(warm int) *Store {
		s, err := Open(ctx, Config{Dir: dir, ReplicaID: repA, Wall: wall, TailCacheBytes: budget,
			TailCacheWarmEvents: warm, MaxPageBytes: pageBytes})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	s := open(0)
	peer, peerWall := openReplica(t, repB)
	py := &pyOrigin{replica: "rep_0123456789ab"}
	var pyOps []Op
	pyApplied := 0

	type reader struct {
		f    Filter
		seen []string
	}
	var readers []*reader
	for range 12 {
		f := randomFilter(rng, s, nil)
		f.Order, f.Preview = "asc", false
		f.Limit = []int{1, 2, 3, 7}[rng.IntN(4)]
		readers = append(readers, &reader{f: f})
	}
	page := func(r *reader) int {
		res, err := s.List(ctx, r.f)
		if err != nil {
			t.Fatalf("filter %+v: %v", r.f, err)
		}
		r.seen = append(r.seen, ids(res.Events)...)
		r.f.Cursor = res.Cursor
		return len(res.Events)
	}
	for step := 0; step < 600; step++ {
		wall.Advance(time.Duration(rng.IntN(2000)) * time.Millisecond)
		switch r := rng.IntN(20); {
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
			at := testClockStart.Add(time.Duration(len(pyOps)) * time.Second) // older than most held events
			pyOps = append(pyOps, py.next(rng, at, agentsFor(rng), agentsFor(rng), "c1", ""))
			if rng.IntN(2) == 0 {
				mustApply(t, s, Batch{Ops: pyOps[max(0, pyApplied-1):]})
				pyApplied = len(pyOps)
			}
		case r < 10:
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s = open(rng.IntN(40))
		default:
			page(readers[rng.IntN(len(readers))])
		}
	}
	exchange(t, peer, s)
	if pyApplied < len(pyOps) {
		mustApply(t, s, Batch{Ops: pyOps[max(0, pyApplied-1):]})
	}
	all := allEventsBySeq(t, s)
	for i, r := range readers {
		for n := 0; page(r) > 0; n++ {
			if n > len(all) {
				t.Fatalf("reader %d: paging does not end", i)
			}
		}
		c := mustCompile(t, r.f)
		var want []string
		for j := range all {
			e := &all[j]
			if (c.to == "" || e.ToAgent == c.to || e.ToAgent == "*") && c.eq.matches(e) {
				want = append(want, e.ID)
			}
		}
		if d := duplicates(r.seen); len(d) > 0 {
			t.Fatalf("reader %d (%+v) saw %d events twice: %v", i, r.f, len(d), d)
		}
		got := slices.Clone(r.seen)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			var missed []string
			for _, id := range want {
				if _, found := slices.BinarySearch(got, id); !found {
					missed = append(missed, id)
				}
			}
			t.Fatalf("reader %d (%+v) saw %d events, its filter matches %d; missed %v", i, r.f, len(got), len(want), missed)
		}
	}
}
