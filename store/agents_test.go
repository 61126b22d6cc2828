package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// agentsAppend appends a note from agent at wall time at on s.
func agentsAppend(t *testing.T, s *Store, wall *hlc.ManualClock, agent string, at time.Time) Event {
	t.Helper()
	wall.Set(at)
	return mustAppend(t, s, AppendInput{Type: "note", Stream: "fleet", Room: "r", FromAgent: agent})
}

// agentsCopy applies every op of src that dst lacks.
func agentsCopy(t *testing.T, dst, src *Store) {
	t.Helper()
	ctx := context.Background()
	for origin := range src.VersionVector() {
		ops, err := src.OpsAfter(ctx, origin, dst.VersionVector()[origin], 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(ops) == 0 {
			continue
		}
		res, err := dst.ApplyBatch(ctx, Batch{Ops: ops})
		if err != nil || res.Applied != len(ops) {
			t.Fatalf("apply %d ops of %s: %+v, %v", len(ops), origin, res, err)
		}
	}
}

func TestAgents_Roster(t *testing.T) {
	a, wallA := openTestStore(t)
	b, wallB := openTestStore(t)
	t0 := testClockStart
	agentsAppend(t, a, wallA, "alice@laptop", t0)
	agentsAppend(t, a, wallA, "alice@laptop", t0.Add(time.Minute))
	agentsAppend(t, a, wallA, "bob@ci", t0.Add(2*time.Minute))
	last := agentsAppend(t, b, wallB, "alice@laptop", t0.Add(5*time.Minute))
	agentsAppend(t, b, wallB, "carol@desk", t0.Add(3*time.Minute))
	wallA.Set(t0.Add(6 * time.Minute))
	agentsCopy(t, a, b)

	got, err := a.Agents(context.Background(), 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	reps := []string{a.ReplicaID(), b.ReplicaID()}
	slices.Sort(reps)
	want := []AgentInfo{
		{Agent: "alice@laptop", Replicas: reps, Events: 3, LastHLC: last.HLC,
			LastSeen: t0.Add(5 * time.Minute), LastCreatedAt: last.CreatedAt, Shared: true},
		{Agent: "bob@ci", Replicas: []string{a.ReplicaID()}, Events: 1},
		{Agent: "carol@desk", Replicas: []string{b.ReplicaID()}, Events: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d agents: %+v", len(got), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Agent != w.Agent || !slices.Equal(g.Replicas, w.Replicas) || g.Events != w.Events || g.Shared != w.Shared {
			t.Errorf("agent %d = %+v, want %+v", i, g, w)
		}
	}
	alice := got[0]
	if alice.LastHLC != want[0].LastHLC || !alice.LastSeen.Equal(want[0].LastSeen) || alice.LastCreatedAt != want[0].LastCreatedAt {
		t.Errorf("alice last seen = %s %v %s; want %s %v %s", alice.LastHLC, alice.LastSeen, alice.LastCreatedAt,
			want[0].LastHLC, want[0].LastSeen, want[0].LastCreatedAt)
	}

	// Alice's writes through the two replicas are 4 minutes apart.
	narrow, err := a.Agents(context.Background(), 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if narrow[0].Shared {
		t.Errorf("alice shared with a 3 min window; her replicas are 4 min apart")
	}
}

func TestAgents_EmptyAndInvalid(t *testing.T) {
	s, _ := openTestStore(t)
	got, err := s.Agents(context.Background(), time.Minute)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("empty log: %v, %v; want an empty, non-nil list", got, err)
	}
	if _, err := s.Agents(context.Background(), -time.Second); !errors.Is(err, ErrInvalid) {
		t.Fatalf("negative window: %v, want ErrInvalid", err)
	}
}

// TestAgents_SharedMatchesBruteForce checks the windowed SQL against a
// pairwise comparison on a seeded random history over three replicas.
func TestAgents_SharedMatchesBruteForce(t *testing.T) {
	seed := int64(7)
	rng := rand.New(rand.NewSource(seed))
	type write struct {
		agent, replica string
		ms             int64
	}
	stores := make([]*Store, 3)
	walls := make([]*hlc.ManualClock, 3)
	for i := range stores {
		stores[i], walls[i] = openTestStore(t)
	}
	var writes []write
	at := testClockStart
	for range 80 {
		at = at.Add(time.Duration(rng.Intn(8*60)) * time.Second)
		i := rng.Intn(len(stores))
		agent := fmt.Sprintf("agent-%d", rng.Intn(5))
		e := agentsAppend(t, stores[i], walls[i], agent, at)
		ts, err := hlc.Parse(e.HLC)
		if err != nil {
			t.Fatal(err)
		}
		writes = append(writes, write{agent, stores[i].ReplicaID(), ts.WallMS})
	}
	walls[0].Set(at)
	agentsCopy(t, stores[0], stores[1])
	agentsCopy(t, stores[0], stores[2])
	outcomes := map[bool]int{}
	for _, window := range []time.Duration{0, time.Minute, 5 * time.Minute, 15 * time.Minute} {
		want := map[string]bool{}
		for _, x := range writes {
			for _, y := range writes {
				d := x.ms - y.ms
				if x.agent == y.agent && x.replica != y.replica && d >= 0 && d <= window.Milliseconds() {
					want[x.agent] = true
				}
			}
		}
		got, err := stores[0].Agents(context.Background(), window)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range got {
			outcomes[a.Shared]++
			if a.Shared != want[a.Agent] {
				t.Errorf("seed %d, window %v: %s shared = %v, brute force says %v", seed, window, a.Agent, a.Shared, want[a.Agent])
			}
		}
	}
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Fatalf("seed %d gives a trivial history (shared counts %v); pick another", seed, outcomes)
	}
}
