package store

import "slices"

// waitGraph is the wait-for graph: a node per agent, an edge X -> Y when
// X owes Y an ask. Nodes are numbered in agent name order, and every
// adjacency list is sorted, so every walk below visits them in name
// order and the cycles it finds come out in a fixed order.
type waitGraph struct {
	names []string
	out   [][]int
}

// newWaitGraph builds the graph of the edges (owes, asker).
func newWaitGraph(edges [][2]string) *waitGraph {
	var names []string
	for _, e := range edges {
		names = append(names, e[0], e[1])
	}
	slices.Sort(names)
	names = slices.Compact(names)
	g := &waitGraph{names: names, out: make([][]int, len(names))}
	for _, e := range edges {
		from, _ := slices.BinarySearch(names, e[0])
		to, _ := slices.BinarySearch(names, e[1])
		if from != to {
			g.out[from] = append(g.out[from], to)
		}
	}
	for i := range g.out {
		slices.Sort(g.out[i])
		g.out[i] = slices.Compact(g.out[i])
	}
	return g
}

// maxCycleSteps bounds the extensions of a path the cycle search makes
// (cycles): past it the search stops and says so.
const maxCycleSteps = 1 << 20

// cycles returns the graph's elementary cycles of at most maxLen agents,
// at most limit of them: shorter cycles first, cycles of one length in
// lexicographic order of their agents, each cycle as the node numbers of
// its agents from its smallest one (its canonical rotation). truncated
// reports that more cycles may exist within maxLen: the answer is full,
// or the search met maxCycleSteps.
//
// The search takes every node s in order as the smallest node of its
// cycles and, for each length l in turn, walks the simple paths from s
// over larger nodes only, depth first in node order, so the cycles of l
// agents through s come out in lexicographic order, and no short cycle
// waits behind the search for long ones. A path is extended to w only
// when w can still get back to s within l agents (the distance from w to
// s among the nodes at least s: one breadth-first search per s), and only
// lengths that can still enter the answer are searched. The work is
// bounded by V breadth-first searches of O(V + E) and maxCycleSteps
// extensions.
func (g *waitGraph) cycles(maxLen, limit int) (out [][]int, truncated bool) {
	n := len(g.names)
	in := make([][]int, n)
	for v, ws := range g.out {
		for _, w := range ws {
			in[w] = append(in[w], v)
		}
	}
	byLen := make([][][]int, maxLen+1) // byLen[l]: the first cycles of l agents, in order
	steps := 0
	dist := make([]int, n)
	onPath := make([]bool, n)
	path := make([]int, 0, maxLen)
	// walk extends path, which ends at v, towards the cycles of exactly l
	// agents through path[0]; false means the step bound was met.
	var walk func(v, l int) bool
	walk = func(v, l int) bool {
		s := path[0]
		for _, w := range g.out[v] {
			if steps++; steps > maxCycleSteps {
				truncated = true
				return false
			}
			switch {
			case w == s && len(path) == l:
				if len(byLen[l]) < limit {
					byLen[l] = append(byLen[l], slices.Clone(path))
				} else {
					truncated = true
				}
			case w > s && !onPath[w] && dist[w] >= 0 && len(path)+dist[w] <= l:
				path = append(path, w)
				onPath[w] = true
				ok := walk(w, l)
				onPath[w] = false
				path = path[:len(path)-1]
				if !ok {
					return false
				}
			}
		}
		return true
	}
	for s := 0; s < n; s++ {
		g.distancesTo(s, in, dist)
		path = append(path[:0], s)
		onPath[s] = true
		for l := 2; l <= g.useful(byLen, maxLen, limit); l++ {
			if !walk(s, l) {
				return g.first(byLen, limit), true
			}
		}
		onPath[s] = false
	}
	out = g.first(byLen, limit)
	return out, truncated || len(out) == limit
}

// useful is the longest cycle length still worth a search: once the
// cycles found up to some length fill the answer, longer ones come after
// it.
func (g *waitGraph) useful(byLen [][][]int, maxLen, limit int) int {
	kept := 0
	for l := 2; l <= maxLen; l++ {
		if kept += len(byLen[l]); kept >= limit {
			return l
		}
	}
	return maxLen
}

// first is the answer: the cycles found, shortest first, at most limit.
func (g *waitGraph) first(byLen [][][]int, limit int) [][]int {
	var out [][]int
	for _, cs := range byLen {
		for _, c := range cs {
			if len(out) == limit {
				return out
			}
			out = append(out, c)
		}
	}
	return out
}

// distancesTo sets dist[v] to the number of edges of a shortest path from
// v to s through nodes at least s (-1: none); in holds the reversed edges.
func (g *waitGraph) distancesTo(s int, in [][]int, dist []int) {
	for i := range dist {
		dist[i] = -1
	}
	dist[s] = 0
	queue := []int{s}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, u := range in[v] {
			if u > s && dist[u] < 0 {
				dist[u] = dist[v] + 1
				queue = append(queue, u)
			}
		}
	}
}
