package store

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// TestClaimConflicts_MatchBruteForce: on a seeded random log of 2,000
// events, where four agents claim asks through three lsnode
// replicas (claims with a causal context, in the thread or by ack) and a
// Python hub (without one, and acks whose thread is not the ask's), the
// claim conflicts that replicas holding all of it, or a part of each
// origin, report are those a brute-force reading of the claim rules
// gives: an owed ask whose addressee's claims that name it by ack_of, or
// are in its thread and came after it, came from two or more replicas.
func TestClaimConflicts_MatchBruteForce(t *testing.T) {
	g := newConflictGen(1)
	for range 2000 {
		g.next(t)
	}
	rng := rand.New(rand.NewPCG(1, 7))
	// Owed rows written with every commit, every few events, and never
	// within the test (the default bounds): the asks are read from owed
	// rows, from the events past the owed mark, and from both.
	var stores []*Store
	for i, lag := range [][2]int{{1, 1}, {5, 2}, {owedLagEvents, owedLagPerAgent}} {
		s, _ := openReplica(t, []string{repD, "rep_eeeeeeeeeeee", "rep_ffffffffffffffffffffffffffffffff"}[i])
		setOwedLag(t, s, lag[0], lag[1])
		stores = append(stores, s)
	}
	// One origin after another (claims come before the asks of the
	// origins applied later), a part of each origin, and all of them
	// interleaved in small batches.
	for _, o := range g.origins {
		mustApply(t, stores[0], Batch{Ops: g.ops[o]})
	}
	cut := map[string]int{}
	for _, o := range g.origins {
		cut[o] = len(g.ops[o])/2 + rng.IntN(len(g.ops[o])/2)
		mustApply(t, stores[1], Batch{Ops: g.ops[o][:cut[o]]})
	}
	at := map[string]int{}
	for left := slices.Clone(g.origins); len(left) > 0; {
		i := rng.IntN(len(left))
		o := left[i]
		n := min(at[o]+1+rng.IntN(20), len(g.ops[o]))
		mustApply(t, stores[2], Batch{Ops: g.ops[o][at[o]:n]})
		if at[o] = n; n == len(g.ops[o]) {
			left = slices.Delete(left, i, i+1)
		}
	}
	for _, s := range stores {
		wantConflictsAsModelled(t, s)
	}
	for _, o := range g.origins {
		mustApply(t, stores[1], Batch{Ops: g.ops[o][cut[o]:]})
	}
	n := wantConflictsAsModelled(t, stores[1])
	if n < 50 {
		t.Fatalf("the log holds %d claim conflicts: too few to test the count", n)
	}
	t.Logf("%d claim conflicts", n)
}

// conflictGen writes the ops of a mesh whose agents claim asks through
// several replicas: three lsnode origins, whose replies carry the causal
// context of what their origin had seen, and a Python hub, whose replies
// carry none and whose acks may name an ask outside their thread. Every
// origin sees the others' events late, by a random amount, and only
// replies to events it has seen.
type conflictGen struct {
	rng     *rand.Rand
	origins []string
	ops     map[string][]Op
	seen    map[string]map[string]int64 // by origin: the top of every origin it has seen
	events  []Event
	ms      int64
}

const conflictGenPython = "rep_0123456789ab"

func newConflictGen(seed uint64) *conflictGen {
	g := &conflictGen{rng: rand.New(rand.NewPCG(seed, seed^0x5bd1e995)), origins: []string{repA, repB, repC, conflictGenPython},
		ops: map[string][]Op{}, seen: map[string]map[string]int64{}, ms: testClockStart.UnixMilli()}
	for _, o := range g.origins {
		g.seen[o] = map[string]int64{}
	}
	return g
}

// visible picks one of the newest events origin o has seen.
func (g *conflictGen) visible(o string) (Event, bool) {
	var vis []Event
	for i := len(g.events) - 1; i >= 0 && len(vis) < 40 && i >= len(g.events)-400; i-- {
		if e := g.events[i]; e.OriginReplica == o || e.OriginSeq <= g.seen[o][e.OriginReplica] {
			vis = append(vis, e)
		}
	}
	if len(vis) == 0 {
		return Event{}, false
	}
	return vis[g.rng.IntN(len(vis))], true
}

func (g *conflictGen) next(t *testing.T) {
	pick := func(xs []string) string { return xs[g.rng.IntN(len(xs))] }
	o := pick(g.origins)
	for _, p := range g.origins { // o hears of some of the others' events
		if top := int64(len(g.ops[p])); p != o && g.rng.IntN(2) == 0 {
			g.seen[o][p] = max(g.seen[o][p], top-int64(g.rng.IntN(10)))
		}
	}
	g.ms += int64(g.rng.IntN(4))
	seq := int64(len(g.ops[o])) + 1
	e := Event{ID: fmt.Sprintf("evt_%s_%012x", time.UnixMilli(g.ms).UTC().Format("20060102T150405"), len(g.events)),
		OriginReplica: o, OriginSeq: seq, HLC: hlc.Timestamp{WallMS: g.ms, Counter: uint32(len(g.events)), Replica: o}.String(),
		Stream: "project/x", Room: "delegation", CreatedAt: createdAt(time.UnixMilli(g.ms))}
	client := map[string]any{}
	target, ok := g.visible(o)
	claimer := target.ToAgent
	if claimer == "" || claimer == "*" || g.rng.IntN(5) == 0 {
		claimer = pick(propAgents)
	}
	switch r := g.rng.IntN(100); {
	case r < 30 || !ok: // an ask
		e.Type, e.FromAgent, e.ToAgent, e.Status = "task.request", pick(propAgents), pick(append([]string{"*"}, propAgents...)), "open"
		e.CorrelationID = pick([]string{"", "c1", "c2", "c3", "c4", "c5", "c6"})
	case r < 90: // a reply: in the thread, or by ack; mostly a claim
		e.Type, e.FromAgent, e.ToAgent, e.CorrelationID = "task.reply", claimer, target.FromAgent, target.CorrelationID
		e.Status = pick([]string{"claimed", "claimed", "claimed", "claimed", "ready", "applied"})
		if r >= 60 {
			e.Type, client["ack_of"] = AckEventType, target.ID
			if e.CorrelationID == "" {
				e.CorrelationID = target.ID
			}
			if o == conflictGenPython && g.rng.IntN(3) == 0 {
				e.CorrelationID = pick([]string{"c1", "c2", "c3"})
			}
		}
	default: // a note from the claimer, in no thread
		e.Type, e.FromAgent, e.ToAgent, e.Status = "note", claimer, target.FromAgent, "claimed"
	}
	var ext extension
	switch {
	case o == conflictGenPython || e.Status == "open":
	case g.rng.IntN(20) == 0: // a context that covers nothing
		ext.Ctx = map[string]int64{}
	default:
		ext.Ctx = maps.Clone(g.seen[o])
		ext.Ctx[o] = seq - 1
	}
	meta, err := joinMetadata(client, ext)
	if err != nil {
		t.Fatal(err)
	}
	e.Metadata = meta
	g.ops[o] = append(g.ops[o], Op{PrevSeq: seq - 1, Event: e})
	g.events = append(g.events, e)
}

// modelledConflict is an owed ask in claim conflict and its claims'
// replicas, as modelConflicts finds them.
type modelledConflict struct {
	id       string
	replicas []string
}

// modelConflicts reads the claim rules (claims.go) literally over every op
// a store holds: the owed asks (modelOwed) that their addressee claimed
// (status claimed) by ack_of, or in their thread after them (the causal
// context covers the ask, or, without one, the claim's hlc is later),
// from two or more replicas; by addressee, oldest first.
func modelConflicts(t *testing.T, s *Store) map[string][]modelledConflict {
	t.Helper()
	type claim struct {
		e     Event
		ackOf string
		ext   extension
	}
	claims := map[string][]claim{} // by writer
	byID := map[string]Event{}
	for _, ops := range allOps(t, s) {
		for _, op := range ops {
			byID[op.Event.ID] = op.Event
			if op.Event.Status != "claimed" {
				continue
			}
			client, ext, err := splitMetadata(op.Event.Metadata)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := client["ack_of"].(string)
			claims[op.Event.FromAgent] = append(claims[op.Event.FromAgent], claim{op.Event, a, ext})
		}
	}
	out := map[string][]modelledConflict{}
	for agent, ids := range modelOwed(t, s) {
		for _, id := range ids {
			e := byID[id]
			from := map[string]bool{}
			for _, r := range claims[agent] {
				joins := r.ackOf == e.ID
				if !joins && e.CorrelationID != "" && r.e.CorrelationID == e.CorrelationID {
					if r.ext.Ctx != nil {
						joins = r.ext.Ctx[e.OriginReplica] >= e.OriginSeq
					} else {
						joins = r.e.HLC > e.HLC
					}
				}
				if joins {
					from[r.e.OriginReplica] = true
				}
			}
			if len(from) > 1 {
				out[agent] = append(out[agent], modelledConflict{id, slices.Sorted(maps.Keys(from))})
			}
		}
	}
	return out
}

// wantConflictsAsModelled checks ClaimConflicts, ClaimConflictCounts and
// the conflict flags of OwedAsks against modelConflicts, and returns the
// number of conflicts.
func wantConflictsAsModelled(t *testing.T, s *Store) int {
	t.Helper()
	ctx := context.Background()
	model := modelConflicts(t, s)
	var want []string
	wantCounts := map[string]int{}
	replicas := map[string][]string{}
	for agent, cs := range model {
		wantCounts[agent] = len(cs)
		for _, c := range cs {
			want = append(want, c.id)
			replicas[c.id] = c.replicas
		}
	}
	counts, err := s.ClaimConflictCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(counts, wantCounts) {
		t.Errorf("%s: conflict counts %v; the model says %v", s.ReplicaID(), counts, wantCounts)
	}
	got, err := s.ClaimConflicts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs []string
	for _, a := range got {
		gotIDs = append(gotIDs, a.Event.ID)
		if c := a.Claim; c == nil || !c.Conflict || !slices.Equal(c.Replicas, replicas[a.Event.ID]) {
			t.Errorf("%s: conflict %s has claim %+v; the model says replicas %v", s.ReplicaID(), a.Event.ID, c, replicas[a.Event.ID])
		}
	}
	slices.Sort(gotIDs)
	slices.Sort(want)
	if !slices.Equal(gotIDs, want) {
		t.Fatalf("%s: conflicts\n %v\nthe model says\n %v", s.ReplicaID(), gotIDs, want)
	}
	for i := 1; i < len(got); i++ {
		if compareOpOrder(got[i-1].Event, got[i].Event) >= 0 {
			t.Errorf("%s: conflicts out of HLC order at %d: %s then %s", s.ReplicaID(), i, got[i-1].Event.ID, got[i].Event.ID)
		}
	}
	for _, agent := range propAgents {
		for _, a := range owedAsks(t, s, agent) {
			inConflict := a.Claim != nil && a.Claim.Conflict
			if _, modelled := replicas[a.Event.ID]; inConflict != modelled {
				t.Errorf("%s: owed ask %s of %s flagged in conflict %v; the model says %v", s.ReplicaID(), a.Event.ID, agent, inConflict, modelled)
			}
		}
	}
	// A scope reads the conflicts in its mailbox only.
	scope := &ReadScope{Agents: []string{"w1"}}
	scoped, err := s.ClaimConflicts(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	var wantScoped, gotScoped []string
	for _, a := range got {
		if scope.allows(&a.Event) {
			wantScoped = append(wantScoped, a.Event.ID)
		}
	}
	for _, a := range scoped {
		gotScoped = append(gotScoped, a.Event.ID)
	}
	if !slices.Equal(gotScoped, wantScoped) {
		t.Errorf("%s: conflicts in w1's scope %v; want %v", s.ReplicaID(), gotScoped, wantScoped)
	}
	return len(want)
}
