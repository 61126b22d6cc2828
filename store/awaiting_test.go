package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// awaitingIDs is Awaiting(q) as event ids.
func awaitingIDs(t *testing.T, s *Store, q AwaitingQuery) []string {
	t.Helper()
	got, err := s.Awaiting(context.Background(), q)
	if err != nil {
		t.Fatalf("awaiting %+v: %v", q, err)
	}
	out := []string{}
	for _, a := range got {
		out = append(out, a.Event.ID)
	}
	return out
}

func TestAwaiting_Rules(t *testing.T) {
	for _, lag := range []struct {
		name            string
		events, perAddr int
	}{{"rows written at once", 1, 1}, {"rows lagging", owedLagEvents, owedLagPerAgent}} {
		t.Run(lag.name, func(t *testing.T) {
			s, wall := openReplica(t, repA)
			setOwedLag(t, s, lag.events, lag.perAddr)
			toW := mustAppend(t, s, ask("boss", "w", "c1"))
			wall.Advance(time.Hour)
			toV := mustAppend(t, s, ask("boss", "v", "c2"))
			mustAppend(t, s, ask("boss", "*", "c3"))  // a broadcast awaits nobody
			mustAppend(t, s, ask("boss", "boss", "")) // nor one to oneself
			mustAppend(t, s, ask("boss", "", ""))     // nor one to nobody
			answered := mustAppend(t, s, ask("boss", "w", "c4"))
			mustAck(t, s, answered.ID, "w", "applied")
			otherAsker := mustAppend(t, s, ask("x", "w", "c5"))
			wall.Advance(time.Hour)
			heard := mustAppend(t, s, note("w", "x"))

			for _, tc := range []struct {
				name string
				q    AwaitingQuery
				want []string
			}{
				{"all", AwaitingQuery{Agent: "boss"}, []string{toW.ID, toV.ID}},
				{"older than 90 minutes", AwaitingQuery{Agent: "boss", OlderThan: 90 * time.Minute}, []string{toW.ID}},
				{"older than exactly the newest", AwaitingQuery{Agent: "boss", OlderThan: time.Hour}, []string{toW.ID, toV.ID}},
				{"older than anything", AwaitingQuery{Agent: "boss", OlderThan: 24 * time.Hour}, []string{}},
				{"stream", AwaitingQuery{Agent: "boss", Stream: "elsewhere"}, []string{}},
				{"limit", AwaitingQuery{Agent: "boss", Limit: 1}, []string{toW.ID}},
				{"another asker", AwaitingQuery{Agent: "x"}, []string{otherAsker.ID}},
				{"unknown agent", AwaitingQuery{Agent: "nobody"}, []string{}},
				{"scope without the asks", AwaitingQuery{Agent: "boss", Scope: &ReadScope{Agents: []string{"v"}}}, []string{toV.ID}},
			} {
				if got := awaitingIDs(t, s, tc.q); !slices.Equal(got, tc.want) {
					t.Errorf("%s: awaiting = %v; want %v", tc.name, got, tc.want)
				}
			}
			got, err := s.Awaiting(context.Background(), AwaitingQuery{Agent: "boss"})
			if err != nil {
				t.Fatal(err)
			}
			w, v := got[0], got[1]
			if w.Age != 2*time.Hour || v.Age != time.Hour {
				t.Errorf("ages %v, %v; want 2h, 1h", w.Age, v.Age)
			}
			if w.LastHeard != heard.HLC || !w.LastHeardAt.Equal(testClockStart.Add(2*time.Hour)) {
				t.Errorf("w last heard %q at %v; want %q", w.LastHeard, w.LastHeardAt, heard.HLC)
			}
			if v.LastHeard != "" || !v.LastHeardAt.IsZero() {
				t.Errorf("v, who never wrote, last heard %q at %v", v.LastHeard, v.LastHeardAt)
			}
			if w.Status() != "open" || w.Claim != nil {
				t.Errorf("w: status %q claim %+v", w.Status(), w.Claim)
			}
		})
	}
}

func TestAwaiting_StatusAndClaim(t *testing.T) {
	s, wall := openReplica(t, repA)
	e := mustAppend(t, s, ask("boss", "w", "c1"))
	wall.Advance(time.Second)
	claim := mustAck(t, s, e.ID, "w", "claimed")
	got, err := s.Awaiting(context.Background(), AwaitingQuery{Agent: "boss"})
	if err != nil || len(got) != 1 {
		t.Fatalf("awaiting: %+v %v", got, err)
	}
	if got[0].Status() != "claimed" || got[0].Claim == nil || got[0].Claim.EventID != claim.ID || got[0].Claim.From != repA {
		t.Errorf("claimed ask: status %q claim %+v", got[0].Status(), got[0].Claim)
	}
	if got[0].LastHeard != claim.HLC {
		t.Errorf("last heard %q; want the claim's %q", got[0].LastHeard, claim.HLC)
	}
	wall.Advance(time.Second)
	mustAppend(t, s, reply("w", "boss", "c1", "ready"))
	got, _ = s.Awaiting(context.Background(), AwaitingQuery{Agent: "boss"})
	if len(got) != 1 || got[0].Status() != "ready" || got[0].Claim == nil {
		t.Errorf("ready ask: %+v", got)
	}
	wall.Advance(time.Second)
	mustAppend(t, s, reply("w", "boss", "c1", "blocked"))
	if ids := awaitingIDs(t, s, AwaitingQuery{Agent: "boss"}); len(ids) != 0 {
		t.Errorf("a blocked ask is still awaited: %v", ids)
	}
}

// TestAwaiting_AnsweredElsewhereBeforeTheAskArrived: a replica that gets
// the answer to an ask (from the replica that answered it) before the ask
// itself (from the asker's replica) awaits nothing, as the others do
// once they hold both.
func TestAwaiting_AnsweredElsewhereBeforeTheAskArrived(t *testing.T) {
	a, _ := openReplica(t, repA)
	b, wb := openReplica(t, repB)
	c, _ := openReplica(t, repC)
	e := mustAppend(t, a, ask("boss", "w", "c1"))
	exchange(t, a, b)
	wb.Advance(time.Second)
	mustAppend(t, b, reply("w", "boss", "c1", "applied"))
	if ids := awaitingIDs(t, a, AwaitingQuery{Agent: "boss"}); !slices.Equal(ids, []string{e.ID}) {
		t.Fatalf("A, before the answer: %v", ids)
	}
	copyOrigin(t, b, c, repB)
	copyOrigin(t, a, c, repA)
	exchange(t, b, a)
	for _, s := range []*Store{a, b, c} {
		if ids := awaitingIDs(t, s, AwaitingQuery{Agent: "boss"}); len(ids) != 0 {
			t.Errorf("%s awaits %v", s.ReplicaID(), ids)
		}
		wantOwed(t, s, "w")
	}
}

func TestAwaiting_Invalid(t *testing.T) {
	s, _ := openTestStore(t)
	before := tableCounts(t, s)
	for _, tc := range []struct {
		q    AwaitingQuery
		want string
	}{
		{AwaitingQuery{}, "agent must be a non-empty string"},
		{AwaitingQuery{Agent: strings.Repeat("a", MaxRoutingChars+1)}, "agent exceeds maximum length of 256 characters"},
		{AwaitingQuery{Agent: "boss", Stream: "a\x01"}, "stream contains control characters"},
		{AwaitingQuery{Agent: "boss", OlderThan: -time.Second}, "older_than must not be negative"},
	} {
		_, err := s.Awaiting(context.Background(), tc.q)
		wantErrText(t, err, ErrInvalid, tc.want)
	}
	if !sameCounts(before, tableCounts(t, s)) {
		t.Error("a refused read wrote")
	}
}

func TestParseOlderThan(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"", 0, ""}, {" 90s ", 90 * time.Second, ""}, {"1h30m", 90 * time.Minute, ""},
		{"-1m", 0, "older_than='-1m' is not a non-negative duration such as 30m or 2h"},
		{"3d", 0, "older_than='3d' is not a non-negative duration such as 30m or 2h"},
		{strings.Repeat("1", MaxDurationChars+1), 0, "older_than exceeds maximum length of 32 characters"},
	} {
		got, err := ParseOlderThan(tc.in)
		if tc.err != "" {
			wantErrText(t, err, ErrInvalid, tc.err)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseOlderThan(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// TestAwaiting_LaggingRowsAcrossRestart: asks whose owed rows are not
// written yet are awaited before and after a restart, and after their
// rows are written, alike.
func TestAwaiting_LaggingRowsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	wall := hlc.NewManualClock(testClockStart)
	s := openReplicaAt(t, dir, repA, wall)
	var want []string
	for i := 0; i < 20; i++ {
		wall.Advance(time.Second)
		want = append(want, mustAppend(t, s, ask("boss", fmt.Sprintf("w%d", i%3), "")).ID)
		mustAppend(t, s, ask("x", "boss", ""))
	}
	if s.owed.total == 0 {
		t.Fatal("no owed rows lag: the test exercises nothing")
	}
	check := func(s *Store, when string) {
		t.Helper()
		if got := awaitingIDs(t, s, AwaitingQuery{Agent: "boss", Limit: 100}); !slices.Equal(got, want) {
			t.Errorf("%s: awaiting %v; want %v", when, got, want)
		}
	}
	check(s, "lagging")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openReplicaAt(t, dir, repA, wall)
	check(s2, "lagging, reopened")
	wall.Advance(time.Second)
	want = append(want, mustAppend(t, s2, ask("boss", "w1", "")).ID)
	check(s2, "one more")
	writeOwedRows(t, s2)
	check(s2, "rows written")
	wall.Advance(time.Second)
	want = append(want, mustAppend(t, s2, ask("boss", "w2", "")).ID)
	check(s2, "after the rows, one more")
}
