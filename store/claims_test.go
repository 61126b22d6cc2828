package store

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
)

// mustAck acks target as from with status.
func mustAck(t *testing.T, s *Store, target, from, status string) Event {
	t.Helper()
	w, err := s.Ack(context.Background(), AckInput{EventID: target, FromAgent: from, Status: status})
	if err != nil {
		t.Fatalf("ack %s: %v", target, err)
	}
	return w.Event
}

// owedAsks is OwedAsks(agent) on everything.
func owedAsks(t *testing.T, s *Store, agent string) []Ask {
	t.Helper()
	asks, err := s.OwedAsks(context.Background(), nil, agent, "", 500)
	if err != nil {
		t.Fatalf("owed asks %s: %v", agent, err)
	}
	return asks
}

// copyOrigin applies every op of one origin that from holds and to lacks.
func copyOrigin(t *testing.T, from, to *Store, origin string) {
	t.Helper()
	ops, err := from.OpsAfter(context.Background(), origin, to.VersionVector()[origin], 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res := mustApply(t, to, Batch{Ops: ops}); res.Applied != len(ops) {
		t.Fatalf("copy %s: %s", origin, fmtResult(res))
	}
}

func TestClaims_Rules(t *testing.T) {
	for _, tc := range []struct {
		name string
		// write writes replies to the ask e (boss to w, thread c1) and
		// returns the event that should be the claim ("" for none) and
		// the status the ask should show.
		write func(t *testing.T, s *Store, wall *hlc.ManualClock, e Event) (claim string, status string)
	}{
		{"unclaimed", func(t *testing.T, s *Store, _ *hlc.ManualClock, e Event) (string, string) {
			return "", "open"
		}},
		{"claimed by ack", func(t *testing.T, s *Store, _ *hlc.ManualClock, e Event) (string, string) {
			return mustAck(t, s, e.ID, "w", "claimed").ID, "claimed"
		}},
		{"claimed in the thread", func(t *testing.T, s *Store, _ *hlc.ManualClock, e Event) (string, string) {
			return mustAppend(t, s, reply("w", "boss", "c1", "claimed")).ID, "claimed"
		}},
		{"claimed by another agent", func(t *testing.T, s *Store, _ *hlc.ManualClock, e Event) (string, string) {
			mustAck(t, s, e.ID, "x", "claimed")
			mustAppend(t, s, reply("x", "boss", "c1", "claimed"))
			return "", "open"
		}},
		{"claim outside the thread", func(t *testing.T, s *Store, _ *hlc.ManualClock, e Event) (string, string) {
			mustAppend(t, s, reply("w", "boss", "c2", "claimed"))
			mustAppend(t, s, reply("w", "boss", "", "claimed"))
			return "", "open"
		}},
		{"earliest claim wins, ready is the status", func(t *testing.T, s *Store, wall *hlc.ManualClock, e Event) (string, string) {
			first := mustAck(t, s, e.ID, "w", "claimed")
			wall.Advance(time.Second)
			mustAppend(t, s, reply("w", "boss", "c1", "claimed"))
			wall.Advance(time.Second)
			mustAppend(t, s, reply("w", "boss", "c1", "ready"))
			return first.ID, "ready"
		}},
		{"open reply is no progress", func(t *testing.T, s *Store, _ *hlc.ManualClock, e Event) (string, string) {
			mustAppend(t, s, reply("w", "boss", "c1", "open"))
			return "", "open"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, wall := openReplica(t, repA)
			e := mustAppend(t, s, ask("boss", "w", "c1"))
			wall.Advance(time.Second)
			claim, status := tc.write(t, s, wall, e)
			asks := owedAsks(t, s, "w")
			if len(asks) != 1 || asks[0].Event.ID != e.ID {
				t.Fatalf("owed asks = %+v; want only %s", asks, e.ID)
			}
			a := asks[0]
			if got := a.Status(); got != status {
				t.Errorf("status = %q; want %q", got, status)
			}
			if claim == "" {
				if a.Claim != nil {
					t.Fatalf("claim = %+v; want none", a.Claim)
				}
				return
			}
			want := Claim{By: "w", From: repA, EventID: claim, Replicas: []string{repA}}
			if a.Claim == nil || a.Claim.By != want.By || a.Claim.From != want.From || a.Claim.EventID != want.EventID ||
				a.Claim.Conflict || !slices.Equal(a.Claim.Replicas, want.Replicas) {
				t.Fatalf("claim = %+v; want %+v", a.Claim, want)
			}
		})
	}
}

// TestClaims_BeforeTheAskDoNotCount: a claim written before an ask in the
// same thread claims the earlier ask, not this one, whether the claim
// carries a causal context (lsnode) or not (a Python hub: HLC order).
func TestClaims_BeforeTheAskDoNotCount(t *testing.T) {
	s, wall := openReplica(t, repA)
	old := mustAppend(t, s, ask("boss", "w", "c1"))
	wall.Advance(time.Second)
	claim := mustAppend(t, s, reply("w", "boss", "c1", "claimed"))
	wall.Advance(time.Second)
	py := &pyOrigin{replica: "rep_0123456789ab"}
	pyClaim := py.next(rand.New(rand.NewPCG(1, 1)), wall.Now(), "w", "boss", "c1", "claimed")
	wall.Advance(time.Second)
	fresh := mustAppend(t, s, ask("boss", "w", "c1"))
	wall.Advance(time.Second)
	mustApply(t, s, Batch{Ops: []Op{pyClaim}})
	asks := owedAsks(t, s, "w")
	if len(asks) != 2 || asks[0].Event.ID != old.ID || asks[1].Event.ID != fresh.ID {
		t.Fatalf("owed = %+v", asks)
	}
	if c := asks[0].Claim; c == nil || c.EventID != claim.ID || !c.Conflict || !slices.Equal(c.Replicas, []string{py.replica, repA}) {
		t.Errorf("the earlier ask's claim = %+v; want %s, in conflict with the Python hub's", c, claim.ID)
	}
	if c := asks[1].Claim; c != nil {
		t.Errorf("the later ask is claimed by %+v; both claims came before it", c)
	}
}

// TestClaims_TwoReplicasConflict: one agent name claims one ask through
// two replicas in a partition. After the heal both replicas name the
// earliest claim, flag the conflict, list the ask and count it in the
// roster and the metric.
func TestClaims_TwoReplicasConflict(t *testing.T) {
	reg := prometheus.NewRegistry()
	wa := hlc.NewManualClock(testClockStart)
	a, err := Open(context.Background(), Config{Dir: t.TempDir(), ReplicaID: repA, Wall: wa, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	b, wb := openReplica(t, repB)
	e := mustAppend(t, a, ask("boss", "w", "c1"))
	exchange(t, a, b)
	wb.Advance(time.Second)
	early := mustAck(t, b, e.ID, "w", "claimed")
	wa.Advance(2 * time.Second)
	mustAck(t, a, e.ID, "w", "claimed")
	if got := gaugeValue(t, reg, "lsnode_store_claim_conflicts"); got != 0 {
		t.Fatalf("conflicts before the heal = %v", got)
	}
	exchange(t, a, b)
	exchange(t, b, a)
	for _, s := range []*Store{a, b} {
		asks := owedAsks(t, s, "w")
		if len(asks) != 1 {
			t.Fatalf("%s owes %+v", s.ReplicaID(), asks)
		}
		c := asks[0].Claim
		if c == nil || c.EventID != early.ID || c.From != repB || !c.Conflict || !slices.Equal(c.Replicas, []string{repA, repB}) {
			t.Errorf("%s: claim = %+v; want %s from %s in conflict", s.ReplicaID(), c, early.ID, repB)
		}
		conflicts, err := s.ClaimConflicts(context.Background(), nil)
		if err != nil || len(conflicts) != 1 || conflicts[0].Event.ID != e.ID || conflicts[0].Event.Body != e.Body {
			t.Errorf("%s: conflicts = %+v, %v", s.ReplicaID(), conflicts, err)
		}
		roster, err := s.Agents(context.Background(), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for _, ag := range roster {
			if want := map[string]int{"w": 1}[ag.Agent]; ag.ClaimConflicts != want {
				t.Errorf("%s: %s has %d claim conflicts; want %d", s.ReplicaID(), ag.Agent, ag.ClaimConflicts, want)
			}
		}
		// Scoped out, the ask is not listed.
		if hidden, err := s.ClaimConflicts(context.Background(), &ReadScope{Agents: []string{"x"}}); err != nil || len(hidden) != 0 {
			t.Errorf("%s: scoped conflicts = %+v, %v", s.ReplicaID(), hidden, err)
		}
	}
	wa.Advance(viewCountInterval) // the gauge counts again once a minute
	if got := gaugeValue(t, reg, "lsnode_store_claim_conflicts"); got != 1 {
		t.Fatalf("conflicts after the heal = %v; want 1", got)
	}
	// Answered, the ask leaves the conflicts.
	mustAck(t, a, e.ID, "w", "applied")
	wa.Advance(viewCountInterval)
	if got := gaugeValue(t, reg, "lsnode_store_claim_conflicts"); got != 0 {
		t.Fatalf("conflicts once answered = %v; want 0", got)
	}
}

// TestClaims_ClaimAndAnswerCrossInPartition: the addressee claims an ask
// through one replica and answers it through another before either saw
// the other's reply. Each side answers by what it holds; after the heal
// the ask is owed nowhere and no conflict is left.
func TestClaims_ClaimAndAnswerCrossInPartition(t *testing.T) {
	a, wa := openReplica(t, repA)
	b, wb := openReplica(t, repB)
	e := mustAppend(t, a, ask("boss", "w", "c1"))
	exchange(t, a, b)
	wa.Advance(time.Second)
	claim := mustAck(t, a, e.ID, "w", "claimed")
	wb.Advance(2 * time.Second)
	mustAppend(t, b, reply("w", "boss", "c1", "applied"))
	if asks := owedAsks(t, a, "w"); len(asks) != 1 || asks[0].Claim == nil || asks[0].Claim.EventID != claim.ID {
		t.Fatalf("A before the heal: %+v", asks)
	}
	if asks := owedAsks(t, b, "w"); len(asks) != 0 {
		t.Fatalf("B before the heal: %+v", asks)
	}
	exchange(t, a, b)
	exchange(t, b, a)
	for _, s := range []*Store{a, b} {
		if asks := owedAsks(t, s, "w"); len(asks) != 0 {
			t.Errorf("%s after the heal owes %+v", s.ReplicaID(), asks)
		}
		if c, err := s.ClaimConflicts(context.Background(), nil); err != nil || len(c) != 0 {
			t.Errorf("%s: conflicts %+v, %v", s.ReplicaID(), c, err)
		}
	}
}

// TestClaims_ClaimAppliedBeforeItsAsk: a replica that receives a claim
// before the ask it claims (another origin's ops first) names the claim
// once the ask arrives, as the replicas that saw them in order do.
func TestClaims_ClaimAppliedBeforeItsAsk(t *testing.T) {
	a, _ := openReplica(t, repA)
	b, wb := openReplica(t, repB)
	c, _ := openReplica(t, repC)
	e := mustAppend(t, a, ask("boss", "w", "c1"))
	exchange(t, a, b)
	wb.Advance(time.Second)
	claim := mustAck(t, b, e.ID, "w", "claimed")
	copyOrigin(t, b, c, repB)
	if asks := owedAsks(t, c, "w"); len(asks) != 0 {
		t.Fatalf("C owes %+v before the ask", asks)
	}
	copyOrigin(t, a, c, repA)
	for _, s := range []*Store{b, c} {
		asks := owedAsks(t, s, "w")
		if len(asks) != 1 || asks[0].Claim == nil || asks[0].Claim.EventID != claim.ID || asks[0].Claim.From != repB {
			t.Errorf("%s: %+v; want %s claimed by %s", s.ReplicaID(), asks, e.ID, claim.ID)
		}
	}
}

// gaugeValue reads one gauge from a registry.
func gaugeValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
