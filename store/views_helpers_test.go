package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// viewsDump renders what the coordination views answer on a store for
// agents, without ages (which depend on the local clock): owed asks and
// awaited asks with their claims, statuses and last stamps, the claim
// conflicts, the wait-for cycles, a few searches with their scores. Converged replicas give equal dumps. It also checks that
// every agent's awaited asks are exactly the owed asks it wrote.
func viewsDump(t *testing.T, s *Store, agents []string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	var owed []Ask
	for _, agent := range agents {
		asks := owedAsks(t, s, agent)
		owed = append(owed, asks...)
		for _, a := range asks {
			fmt.Fprintf(&b, "owed %s %s\n", agent, askLine(a))
		}
	}
	slices.SortFunc(owed, func(x, y Ask) int { return compareOpOrder(x.Event, y.Event) })
	for _, agent := range agents {
		got, err := s.Awaiting(ctx, AwaitingQuery{Agent: agent, Limit: MaxViewLimit})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, a := range owed {
			if a.Event.FromAgent == agent {
				want = append(want, askLine(a))
			}
		}
		var lines []string
		for _, a := range got {
			lines = append(lines, askLine(a.Ask))
			fmt.Fprintf(&b, "awaiting %s %s heard=%s\n", agent, askLine(a.Ask), a.LastHeard)
		}
		if !slices.Equal(lines, want) {
			t.Errorf("%s: %s awaits\n%s\nbut is owed\n%s", s.ReplicaID(), agent, strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	}
	conflicts, err := s.ClaimConflicts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range conflicts {
		fmt.Fprintf(&b, "conflict %s\n", askLine(a))
	}
	cycles, err := s.Cycles(ctx, CycleQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cycles.Cycles {
		fmt.Fprintf(&b, "cycle %+v\n", c)
	}
	fmt.Fprintf(&b, "cycles truncated=%v\n", cycles.Truncated)
	for _, q := range viewQueries {
		res, err := s.Search(ctx, SearchQuery{Query: q, Filter: Filter{Limit: MaxViewLimit}})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			fmt.Fprintf(&b, "search %q %s %v\n", q, h.Event.ID, h.Score)
		}
	}
	return b.String()
}

// viewQueries are the searches viewsDump runs: words of the types, the
// agents and the bodies the tests write.
var viewQueries = []string{"task", "reply OR ack", "python", "from_agent:w1", "to_agent:boss NOT request", "diff*"}

func askLine(a Ask) string {
	line := a.Event.ID + " status=" + a.Status()
	if c := a.Claim; c != nil {
		line += fmt.Sprintf(" claim=%s/%s/%s conflict=%v %v", c.By, c.From, c.EventID, c.Conflict, c.Replicas)
	}
	return line
}

// compareOpOrder orders events by (hlc, origin_replica, origin_seq).
func compareOpOrder(x, y Event) int {
	if c := strings.Compare(x.HLC, y.HLC); c != 0 {
		return c
	}
	if c := strings.Compare(x.OriginReplica, y.OriginReplica); c != 0 {
		return c
	}
	return int(x.OriginSeq - y.OriginSeq)
}
