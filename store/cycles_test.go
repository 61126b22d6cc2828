package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// bruteCycles lists every elementary cycle of the edges by trying every
// simple path from every node, canonical rotation first, sorted by
// length and then lexicographically.
func bruteCycles(n int, edges map[[2]int]bool, maxLen int) [][]int {
	var out [][]int
	var walk func(path []int)
	walk = func(path []int) {
		last := path[len(path)-1]
		if len(path) >= 2 && edges[[2]int{last, path[0]}] {
			out = append(out, slices.Clone(path))
		}
		if len(path) == maxLen {
			return
		}
		for w := 0; w < n; w++ {
			if w > path[0] && !slices.Contains(path, w) && edges[[2]int{last, w}] {
				walk(append(path, w))
			}
		}
	}
	for s := 0; s < n; s++ {
		walk([]int{s})
	}
	slices.SortStableFunc(out, func(a, b []int) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return slices.Compare(a, b)
	})
	return out
}

func TestWaitGraph_MatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 300; trial++ {
		n := 2 + rng.IntN(6)
		density := rng.Float64()
		set := map[[2]int]bool{}
		var edges [][2]string
		name := func(i int) string { return fmt.Sprintf("agent-%c", 'a'+i) }
		for x := 0; x < n; x++ {
			for y := 0; y < n; y++ {
				if x != y && rng.Float64() < density {
					set[[2]int{x, y}] = true
					edges = append(edges, [2]string{name(x), name(y)}, [2]string{name(x), name(y)}) // repeated edges fold
				}
			}
		}
		g := newWaitGraph(edges)
		// Nodes without edges are not in g: number the model's nodes as g does.
		idx := map[int]int{}
		for i := 0; i < n; i++ {
			if j, ok := slices.BinarySearch(g.names, name(i)); ok {
				idx[i] = j
			}
		}
		model := map[[2]int]bool{}
		for e := range set {
			model[[2]int{idx[e[0]], idx[e[1]]}] = true
		}
		maxLen := 2 + rng.IntN(6)
		limit := 1 + rng.IntN(12)
		all := bruteCycles(len(g.names), model, maxLen)
		want, wantTrunc := all, false
		if len(all) >= limit {
			want, wantTrunc = all[:limit], true
		}
		got, trunc := g.cycles(maxLen, limit)
		if !slices.EqualFunc(got, want, slices.Equal) || trunc != wantTrunc {
			t.Fatalf("trial %d (n=%d maxLen=%d limit=%d edges=%v):\n got %v truncated=%v\nwant %v truncated=%v",
				trial, n, maxLen, limit, edges, got, trunc, want, wantTrunc)
		}
	}
}

// TestWaitGraph_CompleteGraphIsBounded: 200 agents who all wait on each
// other have astronomically many cycles; the search stops at the limit,
// on the shortest ones, quickly.
func TestWaitGraph_CompleteGraphIsBounded(t *testing.T) {
	var edges [][2]string
	for x := 0; x < 200; x++ {
		for y := 0; y < 200; y++ {
			if x != y {
				edges = append(edges, [2]string{fmt.Sprintf("a%03d", x), fmt.Sprintf("a%03d", y)})
			}
		}
	}
	g := newWaitGraph(edges)
	start := time.Now()
	got, trunc := g.cycles(MaxCycleLength, MaxCycles)
	if len(got) != MaxCycles || !trunc {
		t.Fatalf("%d cycles, truncated %v", len(got), trunc)
	}
	for i, c := range got {
		if !slices.Equal(c, []int{0, i + 1}) {
			t.Fatalf("cycle %d = %v; want [0 %d]", i, c, i+1)
		}
	}
	// A chain with one back edge: nothing to find but the one long cycle.
	edges = nil
	for x := 0; x < 199; x++ {
		edges = append(edges, [2]string{fmt.Sprintf("a%03d", x), fmt.Sprintf("a%03d", x+1)})
	}
	edges = append(edges, [2]string{"a007", "a000"})
	got, trunc = newWaitGraph(edges).cycles(MaxCycleLength, MaxCycles)
	if len(got) != 1 || !slices.Equal(got[0], []int{0, 1, 2, 3, 4, 5, 6, 7}) || trunc {
		t.Fatalf("chain: %v truncated %v", got, trunc)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
}

// TestCycles_ThreeAgents: a asks b, b asks c and c asks a on three
// replicas; once they have exchanged everything, each reports the one
// cycle a -> c -> b -> a (a owes c, c owes b, b owes a), and an answer
// anywhere breaks it everywhere.
func TestCycles_ThreeAgents(t *testing.T) {
	for _, lag := range []struct {
		name            string
		events, perAddr int
	}{{"rows written at once", 1, 1}, {"rows lagging", owedLagEvents, owedLagPerAgent}} {
		t.Run(lag.name, func(t *testing.T) {
			var stores []*Store
			for _, id := range []string{repA, repB, repC} {
				s, _ := openReplica(t, id)
				setOwedLag(t, s, lag.events, lag.perAddr)
				stores = append(stores, s)
			}
			ab := mustAppend(t, stores[0], ask("a", "b", "t1"))
			bc := mustAppend(t, stores[1], ask("b", "c", "t2"))
			bc2 := mustAppend(t, stores[1], ask("b", "c", "t3"))
			ca := mustAppend(t, stores[2], ask("c", "a", "t4"))
			mustAppend(t, stores[2], ask("c", "d", "t5")) // d owes c: no cycle through d
			heal(t, stores)
			want := []Cycle{{Agents: []string{"a", "c", "b"}, Edges: []CycleEdge{
				{Owes: "a", To: "c", Count: 1, Asks: []string{ca.ID}},
				{Owes: "c", To: "b", Count: 2, Asks: []string{bc.ID, bc2.ID}},
				{Owes: "b", To: "a", Count: 1, Asks: []string{ab.ID}},
			}}}
			for _, s := range stores {
				wantCycles(t, s, CycleQuery{}, want, false)
				wantCycles(t, s, CycleQuery{MaxLength: 2}, nil, false)
				// A scope that cannot read c's ask sees no cycle.
				wantCycles(t, s, CycleQuery{Scope: &ReadScope{Agents: []string{"b"}}}, nil, false)
			}
			mustAck(t, stores[1], ab.ID, "b", "applied")
			heal(t, stores)
			for _, s := range stores {
				wantCycles(t, s, CycleQuery{}, nil, false)
			}
		})
	}
}

// heal exchanges everything between every pair of stores.
func heal(t *testing.T, stores []*Store) {
	t.Helper()
	for range 2 {
		for _, from := range stores {
			for _, to := range stores {
				if from != to {
					exchange(t, from, to)
				}
			}
		}
	}
}

func wantCycles(t *testing.T, s *Store, q CycleQuery, want []Cycle, truncated bool) {
	t.Helper()
	got, err := s.Cycles(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if want == nil {
		want = []Cycle{}
	}
	if fmt.Sprint(got.Cycles) != fmt.Sprint(want) || got.Truncated != truncated {
		t.Errorf("%s: cycles %+v = %+v truncated %v; want %+v truncated %v", s.ReplicaID(), q, got.Cycles, got.Truncated, want, truncated)
	}
}

func TestCycles_LimitAndInvalid(t *testing.T) {
	s, _ := openTestStore(t)
	for _, pair := range [][2]string{{"a", "b"}, {"b", "a"}, {"a", "c"}, {"c", "a"}, {"b", "c"}, {"c", "b"}} {
		mustAppend(t, s, ask(pair[0], pair[1], ""))
	}
	got, err := s.Cycles(context.Background(), CycleQuery{Limit: 2})
	if err != nil || len(got.Cycles) != 2 || !got.Truncated ||
		!slices.Equal(got.Cycles[0].Agents, []string{"a", "b"}) || !slices.Equal(got.Cycles[1].Agents, []string{"a", "c"}) {
		t.Fatalf("limit 2: %+v %v", got, err)
	}
	got, err = s.Cycles(context.Background(), CycleQuery{})
	if err != nil || len(got.Cycles) != 5 || got.Truncated {
		t.Fatalf("all: %+v %v", got, err)
	}
	for _, n := range []int{1, -1, MaxCycleLength + 1} {
		_, err := s.Cycles(context.Background(), CycleQuery{MaxLength: n})
		wantErrText(t, err, ErrInvalid, "max_length must be between 2 and 8")
	}
}
