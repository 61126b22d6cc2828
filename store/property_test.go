package store

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// The convergence property (docs/architecture.md#convergence-of-derived-views): replicas that hold
// the same ops hold them byte for byte and derive the same owed sets and
// duplicate resolution, whatever order, grouping and repetition the ops
// arrived in. Three writer replicas (plus a synthetic Python origin
// without causal context) produce asks, replies, acks, patches and
// idempotent retries while syncing partially with each other; receivers
// then get every op in shuffled, split, merged and duplicated batches and
// re-offer what was deferred until nothing is. Every replica's owed sets
// are also checked against a brute-force reading of the owed-ness rule (docs/architecture.md#owed-ness), and
// their coordination views (awaiting, claims) are the same everywhere.

var propAgents = []string{"boss", "w1", "w2", "w3"}

func TestProperty_ConvergenceAnyOrder(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6}
	if testing.Short() {
		seeds = seeds[:2]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Logf("seed %d", seed)
			runConvergence(t, seed, 150)
		})
	}
}

type propWriter struct {
	s      *Store
	wall   *hlc.ManualClock
	offset time.Duration
}

func runConvergence(t *testing.T, seed uint64, steps int) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var writers []*propWriter
	// Each store writes its owed rows at its own pace (owedlag.go): with
	// every commit, every few events, or at the default bounds.
	lags := [][2]int{{1, 1}, {5, 2}, {owedLagEvents, owedLagPerAgent}}
	for i, id := range []string{repA, repB, repC} {
		s, wall := openReplica(t, id)
		setOwedLag(t, s, lags[i][0], lags[i][1])
		writers = append(writers, &propWriter{s: s, wall: wall, offset: time.Duration(rng.IntN(400)-200) * time.Millisecond})
	}
	py := &pyOrigin{replica: "rep_0123456789ab"}
	now := testClockStart
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	statuses := []string{"", "open", "claimed", "ready", "applied", "blocked", "failed", "superseded"}
	corrs := []string{"", "c1", "c2", "c2", "c3"}
	keys := []string{"", "", "", "k1", "k2"}

	for step := 0; step < steps; step++ {
		now = now.Add(time.Duration(rng.IntN(25)) * time.Millisecond)
		for _, w := range writers {
			w.wall.Set(now.Add(w.offset))
		}
		w := writers[rng.IntN(len(writers))]
		switch r := rng.IntN(100); {
		case r < 25: // an ask
			from := pick(propAgents)
			to := pick(append([]string{"*", ""}, propAgents...))
			in := ask(from, to, pick(corrs))
			in.Status = pick([]string{"open", "open", "", "claimed"})
			in.IdempotencyKey = pick(keys)
			if _, err := w.s.Append(ctx, in); err != nil {
				t.Fatal(err)
			}
		case r < 55: // a reply on a held event's thread, mostly terminal
			e, ok := randomHeld(t, w.s, rng)
			if !ok {
				continue
			}
			from := e.ToAgent
			if from == "" || from == "*" {
				from = pick(propAgents)
			}
			status := pick(statuses)
			if rng.IntN(2) == 0 {
				status = pick(statuses[4:])
			}
			in := reply(from, e.FromAgent, e.CorrelationID, status)
			in.IdempotencyKey = pick(keys)
			if _, err := w.s.Append(ctx, in); err != nil {
				t.Fatal(err)
			}
		case r < 67: // an ack
			e, ok := randomHeld(t, w.s, rng)
			if !ok {
				continue
			}
			from := e.ToAgent
			if from == "" || from == "*" || rng.IntN(4) == 0 {
				from = pick(propAgents)
			}
			if _, err := w.s.Ack(ctx, AckInput{EventID: e.ID, FromAgent: from, Status: pick(statuses), IdempotencyKey: pick(keys)}); err != nil {
				t.Fatal(err)
			}
		case r < 72: // a patch, so artifacts travel too
			if _, err := w.s.PatchSubmit(ctx, PatchInput{Content: fmt.Sprintf("diff %d\n", step), FromAgent: pick(propAgents),
				Stream: "project/x", ToAgent: pick(propAgents), CorrelationID: pick(corrs), IdempotencyKey: pick(keys)}); err != nil {
				t.Fatal(err)
			}
		case r < 80: // an op from a Python hub, relayed through writer 0
			op := py.next(rng, now, pick(propAgents), pick(append([]string{"*"}, propAgents...)), pick(corrs), pick(statuses))
			if res := mustApply(t, writers[0].s, Batch{Ops: []Op{op}}); res.Applied != 1 {
				t.Fatalf("python op: %s", fmtResult(res))
			}
		default: // a partial sync between two writers
			from, to := writers[rng.IntN(len(writers))], writers[rng.IntN(len(writers))]
			if from != to {
				partialExchange(t, from.s, to.s, rng)
			}
		}
	}
	// Heal: sync every pair until every writer holds everything.
	for round := 0; ; round++ {
		if round > 10 {
			t.Fatal("writers did not converge")
		}
		for _, from := range writers {
			for _, to := range writers {
				if from != to {
					exchange(t, from.s, to.s)
				}
			}
		}
		if vvEqual(writers[0].s.VersionVector(), writers[1].s.VersionVector()) &&
			vvEqual(writers[0].s.VersionVector(), writers[2].s.VersionVector()) {
			break
		}
	}
	want := dump(t, writers[0].s)
	wantOwed := map[string][]string{}
	model := modelOwed(t, writers[0].s)
	for _, agent := range propAgents {
		wantOwed[agent] = owedIDs(t, writers[0].s, agent)
		if !slices.Equal(wantOwed[agent], model[agent]) {
			t.Errorf("owed by %s = %v; the owed-ness model (docs/architecture.md#owed-ness) says %v", agent, wantOwed[agent], model[agent])
		}
	}
	wantViews := viewsDump(t, writers[0].s, propAgents)
	for _, w := range writers[1:] {
		checkSame(t, w.s, want, wantOwed)
		checkViews(t, w.s, wantViews)
	}
	// The answers above came partly from rows not written yet; once every
	// store has written them, the rows and the answers agree too.
	wantDerived := writtenDerivedRows(t, writers[0].s)
	for _, w := range writers[1:] {
		if got := writtenDerivedRows(t, w.s); got != wantDerived {
			t.Fatalf("%s: derived rows differ:\n%s", w.s.ReplicaID(), firstDiff(got, wantDerived))
		}
		checkSame(t, w.s, want, wantOwed)
	}
	for i, w := range writers {
		ops := allOps(t, w.s)[w.s.ReplicaID()]
		for j, op := range ops {
			if op.Event.OriginSeq != int64(j+1) {
				t.Fatalf("writer %d: local origin_seq %d at position %d", i, op.Event.OriginSeq, j)
			}
		}
	}

	// Receivers: everything, in any order, split, merged and repeated.
	full := writers[0].s.VersionVector()
	batches := shuffledDelivery(t, writers[0].s, rng)
	for i, id := range []string{repD, "rep_eeeeeeeeeeee", "rep_ffffffffffffffffffffffffffffffff"} {
		recv, _ := openReplica(t, id)
		setOwedLag(t, recv, lags[i][0], lags[i][1])
		pending := slices.Clone(batches)
		rng.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		for pass := 0; len(pending) > 0; pass++ {
			if pass > 200 {
				t.Fatalf("receiver %s stuck with %d batches deferred; vv %v want %v", id, len(pending), recv.VersionVector(), full)
			}
			var again []Batch
			for _, b := range pending {
				res := mustApply(t, recv, b)
				if res.Quarantined != 0 {
					q, _ := recv.Quarantine(ctx, 5)
					t.Fatalf("receiver quarantined a valid op: %+v", q)
				}
				if res.Deferred > 0 {
					again = append(again, b)
				}
			}
			pending = again
		}
		if !vvEqual(recv.VersionVector(), full) {
			t.Fatalf("receiver vv %v; want %v", recv.VersionVector(), full)
		}
		checkSame(t, recv, want, wantOwed)
		checkViews(t, recv, wantViews)
		if got := writtenDerivedRows(t, recv); got != wantDerived {
			t.Fatalf("%s: derived rows differ:\n%s", id, firstDiff(got, wantDerived))
		}
		// And a replay of everything changes nothing.
		before := tableCounts(t, recv)
		for _, b := range batches {
			if res := mustApply(t, recv, b); res.Applied != 0 || res.Quarantined != 0 || res.Artifacts != 0 {
				t.Fatalf("replay: %s", fmtResult(res))
			}
		}
		if !sameCounts(before, tableCounts(t, recv)) {
			t.Fatal("replay changed the store")
		}
	}
}

// writtenDerivedRows writes the store's pending owed rows and returns
// every derived row.
func writtenDerivedRows(t *testing.T, s *Store) string {
	t.Helper()
	writeOwedRows(t, s)
	return derivedRows(t, s)
}

func checkSame(t *testing.T, s *Store, want string, wantOwed map[string][]string) {
	t.Helper()
	if got := dump(t, s); got != want {
		t.Fatalf("%s holds a different op set:\n%s", s.ReplicaID(), firstDiff(got, want))
	}
	for _, agent := range propAgents {
		if got := owedIDs(t, s, agent); !slices.Equal(got, wantOwed[agent]) {
			t.Errorf("%s: owed by %s = %v; want %v", s.ReplicaID(), agent, got, wantOwed[agent])
		}
	}
}

// checkViews asserts that s answers the coordination views as want says.
func checkViews(t *testing.T, s *Store, want string) {
	t.Helper()
	if got := viewsDump(t, s, propAgents); got != want {
		t.Errorf("%s: the views differ:\n%s", s.ReplicaID(), firstDiff(got, want))
	}
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines vs %d", len(la), len(lb))
}

func vvEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// randomHeld picks one of the newest events a store holds.
func randomHeld(t *testing.T, s *Store, rng *rand.Rand) (Event, bool) {
	t.Helper()
	res, err := s.List(context.Background(), Filter{Limit: 60})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) == 0 {
		return Event{}, false
	}
	return res.Events[rng.IntN(len(res.Events))], true
}

// partialExchange copies a random-length prefix of what from holds beyond
// to's prefix, per origin (in name order, so that map order does not leak
// into a seeded run), with the artifacts named.
func partialExchange(t *testing.T, from, to *Store, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	vv := from.VersionVector()
	for _, origin := range slices.Sorted(maps.Keys(vv)) {
		top := vv[origin]
		after := to.VersionVector()[origin]
		if after >= top || rng.IntN(3) == 0 {
			continue
		}
		ops, err := from.OpsAfter(ctx, origin, after, 1+rng.IntN(6), 0)
		if err != nil {
			t.Fatal(err)
		}
		mustApply(t, to, Batch{Artifacts: artifactsOf(t, from, ops), Ops: ops})
	}
}

func artifactsOf(t *testing.T, s *Store, ops []Op) []Artifact {
	t.Helper()
	var out []Artifact
	for _, op := range ops {
		for _, id := range op.Event.ArtifactIDs {
			a, err := s.GetArtifact(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
	}
	return out
}

// shuffledDelivery cuts every origin's ops into chunks, attaches the
// artifacts to some chunks and sends the rest alone, repeats some chunks
// and merges some chunks of different origins into one batch.
func shuffledDelivery(t *testing.T, s *Store, rng *rand.Rand) []Batch {
	t.Helper()
	var out []Batch
	origins := make([]string, 0)
	all := allOps(t, s)
	for o := range all {
		origins = append(origins, o)
	}
	slices.Sort(origins) // map order must not leak into a seeded run
	for _, o := range origins {
		ops := all[o]
		for len(ops) > 0 {
			n := min(len(ops), 1+rng.IntN(8))
			chunk := slices.Clone(ops[:n])
			ops = ops[n:]
			b := Batch{Ops: chunk}
			if arts := artifactsOf(t, s, chunk); len(arts) > 0 {
				if rng.IntN(2) == 0 {
					b.Artifacts = arts
				} else {
					out = append(out, Batch{Artifacts: arts})
				}
			}
			out = append(out, b)
			if rng.IntN(4) == 0 {
				out = append(out, b)
			}
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	var merged []Batch
	for i := 0; i < len(out); i++ {
		b := out[i]
		if i+1 < len(out) && rng.IntN(3) == 0 {
			i++
			b = Batch{Artifacts: append(slices.Clone(b.Artifacts), out[i].Artifacts...), Ops: append(slices.Clone(b.Ops), out[i].Ops...)}
		}
		merged = append(merged, b)
	}
	return merged
}

// pyOrigin makes ops the way a Python hub authors them: gapped origin_seq
// (rowids shared with applied ops), no causal context, no idempotency key.
type pyOrigin struct {
	replica string
	seq     int64
	n       int
}

func (p *pyOrigin) next(rng *rand.Rand, now time.Time, from, to, corr, status string) Op {
	prev := p.seq
	p.seq += 1 + int64(rng.IntN(3))
	p.n++
	ts := hlc.Timestamp{WallMS: now.UnixMilli(), Replica: p.replica}
	return Op{PrevSeq: prev, Event: Event{
		ID: fmt.Sprintf("evt_%s_%012x", now.UTC().Format("20060102T150405"), 0xabc000+p.n), OriginReplica: p.replica,
		OriginSeq: p.seq, HLC: ts.String(), Type: "task.request", Stream: "project/x", Room: "delegation",
		FromAgent: from, ToAgent: to, CorrelationID: corr, Status: status, CreatedAt: createdAt(now),
		Metadata: json.RawMessage(`{}`), Body: "from python",
	}}
}

// modelOwed reads docs/architecture.md#owed-ness literally over every op a store holds: E is
// owed by A when E is addressed to A (not '*'), not written by A, not the
// losing duplicate of an idempotency key, and no terminal event R written
// by A joins E with ack_of = E.id, or with E's correlation_id and "came
// after" E: R's causal context covers E, or, without one, R.hlc > E.hlc.
// Ordered by (hlc, origin_replica, origin_seq).
func modelOwed(t *testing.T, s *Store) map[string][]string {
	t.Helper()
	type parsed struct {
		e     Event
		ackOf string
		ext   extension
	}
	var evs []parsed
	for _, ops := range allOps(t, s) {
		for _, op := range ops {
			client, ext, err := splitMetadata(op.Event.Metadata)
			if err != nil {
				t.Fatalf("stored metadata %s: %v", op.Event.Metadata, err)
			}
			a, _ := client["ack_of"].(string)
			evs = append(evs, parsed{op.Event, a, ext})
		}
	}
	canonical := map[string]parsed{}
	for _, p := range evs {
		if p.ext.Idem == "" {
			continue
		}
		k := p.e.FromAgent + "\x00" + p.ext.Idem
		c, ok := canonical[k]
		if !ok || p.e.HLC < c.e.HLC || (p.e.HLC == c.e.HLC && p.e.OriginReplica < c.e.OriginReplica) {
			canonical[k] = p
		}
	}
	closers := map[string][]parsed{} // the terminal events, by writer
	for _, p := range evs {
		if isTerminal(p.e.Status) {
			closers[p.e.FromAgent] = append(closers[p.e.FromAgent], p)
		}
	}
	out := map[string][]string{}
	var owed []Event
	for _, p := range evs {
		e := p.e
		if e.ToAgent == "" || e.ToAgent == "*" || e.ToAgent == e.FromAgent {
			continue
		}
		if p.ext.Idem != "" && canonical[e.FromAgent+"\x00"+p.ext.Idem].e.ID != e.ID {
			continue
		}
		closed := false
		for _, r := range closers[e.ToAgent] {
			if r.ackOf == e.ID {
				closed = true
			} else if e.CorrelationID != "" && r.e.CorrelationID == e.CorrelationID {
				if r.ext.Ctx != nil {
					closed = r.ext.Ctx[e.OriginReplica] >= e.OriginSeq
				} else {
					closed = r.e.HLC > e.HLC
				}
			}
			if closed {
				break
			}
		}
		if !closed {
			owed = append(owed, e)
		}
	}
	slices.SortFunc(owed, compareOpOrder)
	for _, e := range owed {
		out[e.ToAgent] = append(out[e.ToAgent], e.ID)
	}
	for _, a := range propAgents {
		if out[a] == nil {
			out[a] = []string{}
		}
	}
	return out
}
