package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// threadSweep tells, for the asks of one thread of one addressee, which
// replicas the addressee's claims in the thread that came after each ask
// were written through, as replyCameAfter (derived.go) says in SQL: a
// claim with a causal context came after an ask when the context covers
// the ask's origin slot, a claim without one when its hlc is later. Two
// replicas are enough to tell a conflict, so at most two are kept
// (replicaPair).
//
// The claims without a context that came after an ask are those above
// its hlc: a suffix of them in hlc order, whose replicas are summed up
// once per suffix. The claims with a context that cover an ask of
// origin O are those whose context holds at least the ask's origin_seq
// for O: a prefix of them in descending order of that number, summed up
// once per prefix, per origin. So a thread of a asks and c claims costs
// O((a + c·o) log c) for o origins, not a·c.
type threadSweep struct {
	plain    []sweptClaim  // the claims without a context, by hlc
	suffix   []replicaPair // suffix[i]: the replicas of plain[i:]
	causal   []sweptClaim  // the claims with a context
	byOrigin map[string]*cover
}

// sweptClaim is a claim as the sweep reads it.
type sweptClaim struct {
	hlc, from string
	ctx       map[string]int64 // nil: no causal context
}

// cover is, for one origin, the causal claims' context entries for it in
// descending order, and prefix[i] the replicas of the first i+1.
type cover struct {
	seqs   []int64
	prefix []replicaPair
}

func newThreadSweep(claims []sweptClaim) *threadSweep {
	t := &threadSweep{byOrigin: map[string]*cover{}}
	for _, c := range claims {
		if c.ctx == nil {
			t.plain = append(t.plain, c)
		} else {
			t.causal = append(t.causal, c)
		}
	}
	slices.SortFunc(t.plain, func(a, b sweptClaim) int { return strings.Compare(a.hlc, b.hlc) })
	t.suffix = make([]replicaPair, len(t.plain)+1)
	for i := len(t.plain) - 1; i >= 0; i-- {
		t.suffix[i] = t.suffix[i+1]
		t.suffix[i].add(t.plain[i].from)
	}
	return t
}

// after returns (at most two of) the replicas of the claims that came
// after a.
func (t *threadSweep) after(a *conflictAsk) replicaPair {
	i := sort.Search(len(t.plain), func(i int) bool { return t.plain[i].hlc > a.hlc })
	seen := t.suffix[i]
	if len(t.causal) > 0 {
		c := t.coverFor(a.origin)
		if n := sort.Search(len(c.seqs), func(i int) bool { return c.seqs[i] < a.seq }); n > 0 {
			seen.merge(c.prefix[n-1])
		}
	}
	return seen
}

func (t *threadSweep) coverFor(origin string) *cover {
	if c, ok := t.byOrigin[origin]; ok {
		return c
	}
	type entry struct {
		seq  int64
		from string
	}
	var entries []entry
	for _, c := range t.causal {
		entries = append(entries, entry{c.ctx[origin], c.from})
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(b.seq, a.seq) })
	c := &cover{seqs: make([]int64, len(entries)), prefix: make([]replicaPair, len(entries))}
	var seen replicaPair
	for i, e := range entries {
		seen.add(e.from)
		c.seqs[i], c.prefix[i] = e.seq, seen
	}
	t.byOrigin[origin] = c
	return c
}

// replicaPair holds up to two distinct replicas ("" for none).
type replicaPair struct{ first, second string }

func (p *replicaPair) add(r string) {
	switch {
	case p.first == "":
		p.first = r
	case p.second == "" && r != p.first:
		p.second = r
	}
}

func (p *replicaPair) merge(q replicaPair) {
	for _, r := range []string{q.first, q.second} {
		if r != "" {
			p.add(r)
		}
	}
}

// full reports two distinct replicas: a conflict.
func (p *replicaPair) full() bool { return p.second != "" }

// parseCausal reads a causal context as lsnode_progress stores it
// (causalJSON). It is never nil: a stored context, even one that holds
// nothing, is one (replyCameAfter tests ctx_json IS NULL).
func parseCausal(text string) (map[string]int64, error) {
	var ctx map[string]int64
	if err := json.Unmarshal([]byte(text), &ctx); err != nil {
		return nil, fmt.Errorf("claim conflicts: causal context %q: %w", text, err)
	}
	if ctx == nil {
		ctx = map[string]int64{}
	}
	return ctx, nil
}
