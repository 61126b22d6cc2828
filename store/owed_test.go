package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

func ask(from, to, corr string) AppendInput {
	return AppendInput{Type: "task.request", Stream: "project/x", Room: "delegation", FromAgent: from, ToAgent: to,
		CorrelationID: corr, Status: "open"}
}

func reply(from, to, corr, status string) AppendInput {
	return AppendInput{Type: "task.reply", Stream: "project/x", Room: "delegation", FromAgent: from, ToAgent: to,
		CorrelationID: corr, Status: status}
}

func wantOwed(t *testing.T, s *Store, agent string, want ...string) {
	t.Helper()
	got := owedIDs(t, s, agent)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s owed by %s = %v; want %v", s.ReplicaID(), agent, got, want)
	}
}

func TestOwed_Addressing(t *testing.T) {
	s, wall := openTestStore(t)
	direct := mustAppend(t, s, ask("boss", "w", ""))
	wall.Advance(time.Second)
	mustAppend(t, s, ask("boss", "*", ""))          // broadcast: owed by nobody
	mustAppend(t, s, ask("boss", "", ""))           // addressed to nobody
	mustAppend(t, s, ask("w", "w", ""))             // to oneself
	other := mustAppend(t, s, ask("boss", "v", "")) // someone else's
	noStatus := mustAppend(t, s, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "boss", ToAgent: "w"})
	wantOwed(t, s, "w", direct.ID, noStatus.ID)
	wantOwed(t, s, "v", other.ID)
	wantOwed(t, s, "*")
	wantOwed(t, s, "boss")
	// A stream filter narrows the set.
	evs, err := s.Owed(context.Background(), "w", "elsewhere", 10)
	if err != nil || len(evs) != 0 {
		t.Errorf("stream filter: %v %v", ids(evs), err)
	}
}

func TestOwed_ClosureByAck(t *testing.T) {
	for _, tc := range []struct {
		status string
		closes bool
	}{
		{"", false}, {"open", false}, {"claimed", false}, {"ready", false},
		{"applied", true}, {"blocked", true}, {"failed", true}, {"superseded", true},
	} {
		t.Run("status="+tc.status, func(t *testing.T) {
			s, _ := openTestStore(t)
			e := mustAppend(t, s, ask("boss", "w", ""))
			if _, err := s.Ack(context.Background(), AckInput{EventID: e.ID, FromAgent: "w", Status: tc.status}); err != nil {
				t.Fatal(err)
			}
			if tc.closes {
				wantOwed(t, s, "w")
			} else {
				wantOwed(t, s, "w", e.ID)
			}
		})
	}
}

func TestOwed_AckByAnotherAgentDoesNotClose(t *testing.T) {
	s, _ := openTestStore(t)
	e := mustAppend(t, s, ask("boss", "w", "c1"))
	if _, err := s.Ack(context.Background(), AckInput{EventID: e.ID, FromAgent: "intruder", Status: "applied"}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, reply("boss", "x", "c1", "applied")) // the asker closing its own thread
	wantOwed(t, s, "w", e.ID)
}

func TestOwed_ClosureByCorrelation(t *testing.T) {
	s, wall := openTestStore(t)
	e1 := mustAppend(t, s, ask("boss", "w", "thread"))
	e2 := mustAppend(t, s, ask("boss", "w", "thread"))
	unrelated := mustAppend(t, s, ask("boss", "w", "other"))
	wantOwed(t, s, "w", e1.ID, e2.ID, unrelated.ID)
	mustAppend(t, s, reply("w", "boss", "thread", "claimed"))
	wantOwed(t, s, "w", e1.ID, e2.ID, unrelated.ID)
	mustAppend(t, s, reply("w", "boss", "thread", "applied"))
	wantOwed(t, s, "w", unrelated.ID)
	// A later ask on the same correlation is owed again.
	wall.Advance(time.Minute)
	e3 := mustAppend(t, s, ask("boss", "w", "thread"))
	wantOwed(t, s, "w", unrelated.ID, e3.ID)
	mustAppend(t, s, reply("w", "boss", "thread", "failed"))
	wantOwed(t, s, "w", unrelated.ID)
}

// TestOwed_ConcurrentAskStaysOwed: a reply written on A before a
// concurrent ask from B reached A does not close that ask, on A, on B or
// on a third replica, whatever the arrival order.
func TestOwed_ConcurrentAskStaysOwed(t *testing.T) {
	a, _ := openReplica(t, repA)
	b, _ := openReplica(t, repB)
	c, _ := openReplica(t, repC)
	e1 := mustAppend(t, b, ask("boss", "w", "c"))
	exchange(t, b, a)
	r := mustAppend(t, a, reply("w", "boss", "c", "applied")) // saw e1
	e2 := mustAppend(t, b, ask("boss", "w", "c"))             // did not see r
	// B receives r after e2; A receives e2 after r; C gets A's ops first.
	exchange(t, a, b)
	exchange(t, b, a)
	exchange(t, a, c)
	exchange(t, b, c)
	for _, s := range []*Store{a, b, c} {
		wantOwed(t, s, "w", e2.ID)
	}
	_ = e1
	_ = r
	// Under the RFC's seq rule the answer depends on the replica.
	if seqOwed(t, a, "w") == nil || seqOwed(t, b, "w") != nil {
		t.Errorf("RFC seq rule: A %v B %v; expected them to disagree", seqOwed(t, a, "w"), seqOwed(t, b, "w"))
	}
}

// TestOwed_RFCSeqRuleDiverges reproduces RFC 003 §3.3's derivation ("a
// strictly higher seq"; docs/architecture.md#rfcs) on two replicas holding
// the same ops: it gives different owed sets (§7.3), while Store.Owed
// gives the same one.
func TestOwed_RFCSeqRuleDiverges(t *testing.T) {
	a, _ := openReplica(t, repA)
	b, _ := openReplica(t, repB)
	first := mustAppend(t, b, ask("boss", "w", "c"))
	exchange(t, b, a)
	mustAppend(t, a, reply("w", "boss", "c", "applied"))
	again := mustAppend(t, b, ask("boss", "w", "c"))
	exchange(t, a, b)
	exchange(t, b, a)
	if dump(t, a) != dump(t, b) {
		t.Fatal("replicas do not hold the same ops")
	}
	seqA, seqB := seqOwed(t, a, "w"), seqOwed(t, b, "w")
	if slices.Equal(seqA, seqB) {
		t.Fatalf("seq rule agreed (%v); the scenario does not show the divergence", seqA)
	}
	if !slices.Equal(seqA, []string{again.ID}) || len(seqB) != 0 {
		t.Errorf("seq rule: A %v B %v", seqA, seqB)
	}
	wantOwed(t, a, "w", again.ID)
	wantOwed(t, b, "w", again.ID)
	_ = first
}

// seqOwed is RFC 003 §3.3 verbatim: E is owed by agent when it is
// addressed to agent (not '*'), not written by agent, and no event of
// agent's with a strictly higher local seq joins it (ack_of or shared
// correlation_id) with a terminal status.
func seqOwed(t *testing.T, s *Store, agent string) []string {
	t.Helper()
	evs := allEventsBySeq(t, s)
	var out []string
	for _, e := range evs {
		if e.ToAgent != agent || e.FromAgent == agent {
			continue
		}
		closed := false
		for _, r := range evs {
			if r.FromAgent != agent || r.Seq <= e.Seq || !isTerminal(r.Status) {
				continue
			}
			if ackOf(t, r) == e.ID || (e.CorrelationID != "" && r.CorrelationID == e.CorrelationID) {
				closed = true
				break
			}
		}
		if !closed {
			out = append(out, e.ID)
		}
	}
	return out
}

func allEventsBySeq(t testing.TB, s *Store) []Event {
	t.Helper()
	var out []Event
	var after int64
	for {
		res, err := s.List(context.Background(), Filter{AfterSeq: after, Limit: 500, Order: "asc"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) == 0 {
			return out
		}
		out = append(out, res.Events...)
		after = res.Events[len(res.Events)-1].Seq
	}
}

func isTerminal(status string) bool {
	switch status {
	case "applied", "blocked", "failed", "superseded":
		return true
	}
	return false
}

func ackOf(t testing.TB, e Event) string {
	t.Helper()
	client, _, err := splitMetadata(e.Metadata)
	if err != nil {
		return ""
	}
	s, _ := client["ack_of"].(string)
	return s
}

// TestOwed_HLCFallbackWithoutContext: ops written by a Python hub carry no
// causal context; a terminal reply closes the asks of its thread whose HLC
// is lower than its own.
func TestOwed_HLCFallbackWithoutContext(t *testing.T) {
	a, _ := openReplica(t, repA)
	const py = "rep_0123456789ab" // a legacy 12-hex Python replica
	mk := func(seq, prev int64, ms int64, from, to, corr, status string) Op {
		ts := hlc.Timestamp{WallMS: ms, Replica: py}
		return Op{PrevSeq: prev, Event: Event{
			ID: fmt.Sprintf("evt_20261130T120000_%012x", seq), OriginReplica: py, OriginSeq: seq, HLC: ts.String(),
			Type: "task.request", Stream: "s", Room: "r", FromAgent: from, ToAgent: to, CorrelationID: corr, Status: status,
			CreatedAt: "2026-11-30T12:00:00Z", Metadata: json.RawMessage(`{}`),
		}}
	}
	base := testClockStart.UnixMilli()
	early := mk(2, 0, base+10, "boss", "w", "c", "open")
	rep := mk(5, 2, base+20, "w", "boss", "c", "applied")
	late := mk(9, 5, base+15, "boss", "w", "c", "open") // higher origin_seq, lower hlc: closed by hlc
	later := mk(11, 9, base+30, "boss", "w", "c", "open")
	mustApply(t, a, Batch{Ops: []Op{early, rep, late, later}})
	wantOwed(t, a, "w", later.Event.ID)
	// Applied in another grouping and order on another replica: same answer.
	b, _ := openReplica(t, repB)
	for _, batch := range [][]Op{{late}, {early}, {later, rep}, {rep, late, later}} {
		mustApply(t, b, Batch{Ops: batch})
	}
	wantOwed(t, b, "w", later.Event.ID)
}

func TestOwed_SurvivesReopenAndReindex(t *testing.T) {
	dir, wall, e := owedFixture(t, nil)
	// Drop the derived tables and the watermark, as if the file had been
	// last written by the Python hub: Open rebuilds them from the events.
	raw := openRawDB(t, dir)
	for _, q := range []string{`DROP TABLE lsnode_owed`, `DROP TABLE lsnode_closures`, `DROP TABLE lsnode_idempotency`, `DELETE FROM lsnode_meta`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	s2 := openReplicaAt(t, dir, repA, wall)
	wantOwed(t, s2, "w", e.ID)
}

// TestOwed_OldDerivedLayoutRebuilt: a file whose lsnode_owed predates the
// correlation_id column opens, and its derived tables are rebuilt.
func TestOwed_OldDerivedLayoutRebuilt(t *testing.T) {
	dir, wall, e := owedFixture(t, nil)
	raw := openRawDB(t, dir)
	for _, q := range []string{`DROP TABLE lsnode_owed`, `CREATE TABLE lsnode_owed (event_id TEXT PRIMARY KEY, agent TEXT NOT NULL,
stream TEXT NOT NULL, hlc TEXT NOT NULL, origin_replica TEXT NOT NULL, origin_seq INTEGER NOT NULL)`,
		`INSERT INTO lsnode_owed VALUES ('stale', 'w', 's', 'h', 'o', 1)`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	s2 := openReplicaAt(t, dir, repA, wall)
	wantOwed(t, s2, "w", e.ID)
	mustAppend(t, s2, reply("w", "boss", "c", "failed"))
	wantOwed(t, s2, "w")
}

// TestOwed_RowidLayoutRebuilt: a file whose lsnode_owed has a rowid and a
// page index (the layout before WITHOUT ROWID) opens; its owed rows are
// re-derived from the closures and idempotency keys it holds, and later
// closures still find them.
func TestOwed_RowidLayoutRebuilt(t *testing.T) {
	var f Event
	dir, wall, e := owedFixture(t, func(s *Store) { f = mustAppend(t, s, ask("boss", "v", "e")) })
	raw := openRawDB(t, dir)
	for _, q := range []string{`DROP TABLE lsnode_owed`, `CREATE TABLE lsnode_owed (event_id TEXT PRIMARY KEY, agent TEXT NOT NULL,
stream TEXT NOT NULL, hlc TEXT NOT NULL, origin_replica TEXT NOT NULL, origin_seq INTEGER NOT NULL, correlation_id TEXT)`,
		`CREATE INDEX lsnode_owed_page_idx ON lsnode_owed(agent, hlc, origin_replica, origin_seq, stream, event_id)`,
		`CREATE INDEX lsnode_owed_thread_idx ON lsnode_owed(agent, correlation_id)`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	s2 := openReplicaAt(t, dir, repA, wall)
	wantOwed(t, s2, "w", e.ID)
	wantOwed(t, s2, "v", f.ID)
	if _, err := s2.Ack(context.Background(), AckInput{EventID: e.ID, FromAgent: "w", Status: "failed"}); err != nil {
		t.Fatal(err)
	}
	wantOwed(t, s2, "w")
	wantOwed(t, s2, "v", f.ID)
}

// owedFixture writes a closed data dir in which "w" owes e (a second ask
// to "w" was answered); more, when given, writes further before the
// close.
func owedFixture(t *testing.T, more func(*Store)) (dir string, wall *hlc.ManualClock, e Event) {
	t.Helper()
	dir = t.TempDir()
	wall = hlc.NewManualClock(testClockStart)
	s := openReplicaAt(t, dir, repA, wall)
	e = mustAppend(t, s, ask("boss", "w", "c"))
	mustAppend(t, s, ask("boss", "w", "d"))
	mustAppend(t, s, reply("w", "boss", "d", "applied"))
	if more != nil {
		more(s)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, wall, e
}
