package store

import (
	"context"
	"fmt"
)

// CycleQuery bounds a search for wait-for cycles.
type CycleQuery struct {
	// MaxLength bounds the agents of a cycle: 0 means MaxCycleLength;
	// 2 to MaxCycleLength.
	MaxLength int
	// Limit bounds the cycles reported: 0 means MaxCycles; larger limits
	// are clamped to it.
	Limit int
	// Scope is what the caller may read (nil: everything): only the asks
	// it may read make edges.
	Scope *ReadScope
}

// Cycle is a wait-for cycle: Agents[0] owes Agents[1] an ask, Agents[1]
// owes Agents[2], and the last owes Agents[0]. Everyone in it waits on
// someone who waits on them. Agents start at the smallest name.
type Cycle struct {
	Agents []string
	// Edges[i] is the edge from Agents[i] to the next agent.
	Edges []CycleEdge
}

// CycleEdge is one edge of a cycle: Owes owes To the Count asks To wrote
// and Owes has not answered; Asks holds the ids of the oldest of them (in
// HLC order), at most MaxCycleAsks.
type CycleEdge struct {
	Owes  string
	To    string
	Count int
	Asks  []string
}

// CycleResult is the answer of Cycles.
type CycleResult struct {
	// Cycles are ordered by length, then by their agents.
	Cycles []Cycle
	// Truncated reports that more cycles may exist within the length
	// bound: the answer reached its limit or the search its step bound.
	Truncated bool
}

// waitEdgesSQL counts the owed asks of every (addressee, asker) pair: the
// rows of lsnode_owed and the events past the owed mark that are owed and
// have no row yet (owedlag.go); written and pending are the scope's
// conditions on each arm. It reads every owed row, so its cost grows with
// the owed set.
func waitEdgesSQL(written, pending string) string {
	return `SELECT owes, asker, count(*) FROM (
SELECT o.agent AS owes, o.from_agent AS asker FROM lsnode_owed o WHERE ` + written + `
UNION ALL
SELECT e.to_agent, e.from_agent FROM events e WHERE e.rowid > ` + owedMarkSQL + ` AND ` + pending + ` AND ` + owedTailCondition + `
 AND NOT EXISTS (SELECT 1 FROM lsnode_owed o WHERE o.agent = e.to_agent AND o.hlc = e.hlc AND o.origin_replica = e.origin_replica AND o.origin_seq = e.origin_seq))
GROUP BY owes, asker`
}

// Cycles returns the wait-for cycles of the owed set: an edge X -> Y when
// X owes Y an ask (Y asked, X has not answered). They are derived from the
// op set alone, so converged replicas report the same ones. The search is
// bounded (waitGraph.cycles): at most q.Limit cycles of at most
// q.MaxLength agents, and a fixed number of steps.
func (s *Store) Cycles(ctx context.Context, q CycleQuery) (CycleResult, error) {
	w, err := s.waitCycles(ctx, q)
	if err != nil {
		return CycleResult{}, err
	}
	out := CycleResult{Cycles: make([]Cycle, len(w.found)), Truncated: w.truncated}
	asks := map[[2]string][]string{}
	for i, c := range w.found {
		cy := Cycle{Agents: make([]string, len(c)), Edges: make([]CycleEdge, len(c))}
		for j, v := range c {
			cy.Agents[j] = w.graph.names[v]
		}
		for j := range c {
			e := [2]string{cy.Agents[j], cy.Agents[(j+1)%len(c)]}
			ids, ok := asks[e]
			if !ok {
				evs, err := s.owedPageIDs(ctx, owedSelect{to: e[0], from: e[1], scope: q.Scope}, MaxCycleAsks)
				if err != nil {
					return CycleResult{}, err
				}
				ids, asks[e] = evs, evs
			}
			cy.Edges[j] = CycleEdge{Owes: e[0], To: e[1], Count: w.counts[e], Asks: ids}
		}
		out.Cycles[i] = cy
	}
	return out, nil
}

// foundCycles are the cycles of the wait-for graph as waitGraph.cycles
// finds them, with the graph and its edges' ask counts.
type foundCycles struct {
	graph     *waitGraph
	counts    map[[2]string]int
	found     [][]int
	truncated bool
}

// waitCycles builds the wait-for graph q may read and finds its cycles;
// Cycles adds their asks, the cycles gauge counts them.
func (s *Store) waitCycles(ctx context.Context, q CycleQuery) (foundCycles, error) {
	maxLen, limit := q.MaxLength, q.Limit
	if maxLen == 0 {
		maxLen = MaxCycleLength
	}
	if maxLen < 2 || maxLen > MaxCycleLength {
		return foundCycles{}, invalidf("max_length must be between 2 and %d", MaxCycleLength)
	}
	if limit <= 0 || limit > MaxCycles {
		limit = MaxCycles
	}
	written, pending, args := "1", "1", []any(nil)
	if q.Scope != nil {
		cond, cargs := q.Scope.condition("e.")
		written = `EXISTS (SELECT 1 FROM events e WHERE e.id = o.event_id AND ` + cond + `)`
		pending = cond
		args = append(append(args, cargs...), cargs...)
	}
	rows, err := s.reads.pool().QueryContext(ctx, waitEdgesSQL(written, pending), args...)
	if err != nil {
		return foundCycles{}, fmt.Errorf("wait-for edges: %w", err)
	}
	defer rows.Close()
	var edges [][2]string
	counts := map[[2]string]int{}
	for rows.Next() {
		var e [2]string
		var n int
		if err := rows.Scan(&e[0], &e[1], &n); err != nil {
			return foundCycles{}, fmt.Errorf("wait-for edges: %w", err)
		}
		edges = append(edges, e)
		counts[e] = n
	}
	if err := rows.Err(); err != nil {
		return foundCycles{}, fmt.Errorf("wait-for edges: %w", err)
	}
	g := newWaitGraph(edges)
	found, truncated := g.cycles(maxLen, limit)
	return foundCycles{graph: g, counts: counts, found: found, truncated: truncated}, nil
}
