package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/lsnode/lsnode/hlc"
)

// setOwedLag sets the store's owed lag bounds, on the writer goroutine
// that owns them.
func setOwedLag(t testing.TB, s *Store, events, perAgent int) {
	t.Helper()
	if err := s.write(context.Background(), func(*writeTx) error {
		s.owed.maxEvents, s.owed.maxPerAgent = events, perAgent
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// writeOwedRows has the writer write every lagging owed row and returns
// once it has: with bounds of one event the commit of the request that
// sets them leaves the lag full, and the next request runs after the
// write.
func writeOwedRows(t testing.TB, s *Store) {
	t.Helper()
	bounds := make(chan [2]int, 1)
	if err := s.write(context.Background(), func(*writeTx) error {
		bounds <- [2]int{s.owed.maxEvents, s.owed.maxPerAgent}
		s.owed.maxEvents, s.owed.maxPerAgent = 1, 1
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b := <-bounds
	setOwedLag(t, s, b[0], b[1])
	if s.owed.total != 0 {
		t.Fatalf("the owed rows of %d events still lag", s.owed.total)
	}
}

// owedLagging reads the lsnode_store_owed_rows_lagging gauge.
func owedLagging(t testing.TB, s *Store) float64 {
	t.Helper()
	var m dto.Metric
	if err := s.metrics.owedLagging.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

// owedRowCount counts agent's written owed rows once the writer has done
// what the last commit left it to do (rows due are written after the
// commit's callers are answered).
func owedRowCount(t testing.TB, s *Store, agent string) int {
	t.Helper()
	if err := s.write(context.Background(), func(*writeTx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.readDB.QueryRow(`SELECT count(*) FROM lsnode_owed WHERE agent = ?`, agent).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOwedLag_Bounds: owed rows wait until owedLagPerAgent events are
// addressed to one agent or owedLagEvents to any, and Owed answers the
// same before and after they are written.
func TestOwedLag_Bounds(t *testing.T) {
	s, _ := openReplica(t, repA)
	setOwedLag(t, s, 6, 3)
	for i := range 2 {
		mustAppend(t, s, note("lead", "dev"))
		if got := owedRowCount(t, s, "dev"); got != 0 {
			t.Fatalf("after %d events to dev: %d owed rows written, want 0", i+1, got)
		}
		if got := len(owedIDs(t, s, "dev")); got != i+1 {
			t.Fatalf("after %d events to dev: owed %d, want %d", i+1, got, i+1)
		}
	}
	if got := owedLagging(t, s); got != 2 {
		t.Fatalf("lsnode_store_owed_rows_lagging = %v with 2 rows not written", got)
	}
	mustAppend(t, s, note("lead", "dev")) // the third reaches the per-agent bound
	if got := owedRowCount(t, s, "dev"); got != 3 {
		t.Fatalf("per-agent bound reached: %d owed rows written, want 3", got)
	}
	if got := owedLagging(t, s); got != 0 {
		t.Fatalf("lsnode_store_owed_rows_lagging = %v once every row is written", got)
	}
	// Events nobody owes (broadcasts, to oneself) do not count.
	mustAppend(t, s, note("lead", "*"))
	mustAppend(t, s, note("lead", "lead"))
	for i, agent := range []string{"a1", "a2", "a3", "a4", "a5"} {
		mustAppend(t, s, note("lead", agent))
		if got := owedRowCount(t, s, agent); got != 0 {
			t.Fatalf("after %d events past the mark: %s has a written owed row", i+1, agent)
		}
	}
	mustAppend(t, s, note("lead", "a6")) // the sixth reaches the total bound
	for _, agent := range []string{"a1", "a6"} {
		if got := owedRowCount(t, s, agent); got != 1 {
			t.Fatalf("total bound reached: %s has %d owed rows written, want 1", agent, got)
		}
	}
	if got := owedRowCount(t, s, "lead"); got != 0 {
		t.Fatalf("an event to its own writer is owed: %d rows", got)
	}
}

// TestOwedLag_ClosuresOfPendingEvents: an ack or a thread's terminal reply
// that arrives while the event's owed row is not written yet closes it
// both in the answer and in the row written later; the losing duplicate
// of an idempotency key is never owed.
func TestOwedLag_ClosuresOfPendingEvents(t *testing.T) {
	ctx := context.Background()
	s, _ := openReplica(t, repA)
	setOwedLag(t, s, 1000, 1000)
	acked := mustAppend(t, s, ask("lead", "dev", "t-1"))
	inThread := mustAppend(t, s, ask("lead", "dev", "t-2"))
	open := mustAppend(t, s, ask("lead", "dev", "t-3"))
	keyed := ask("lead", "dev", "t-4")
	keyed.IdempotencyKey = "k"
	first := mustAppend(t, s, keyed)
	if res, err := s.Append(ctx, keyed); err != nil || !res.Duplicate {
		t.Fatalf("retry: %+v, %v", res, err)
	}
	if _, err := s.Ack(ctx, AckInput{EventID: acked.ID, FromAgent: "dev", Status: "applied"}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, reply("dev", "lead", "t-2", "applied"))
	want := []string{open.ID, first.ID}
	if got := owedIDs(t, s, "dev"); !slices.Equal(got, want) {
		t.Fatalf("owed by dev before the rows are written: %v, want %v (acked %s, closed thread %s)", got, want, acked.ID, inThread.ID)
	}
	if got := owedRowCount(t, s, "dev"); got != 0 {
		t.Fatalf("%d owed rows written under the bounds", got)
	}
	writeOwedRows(t, s)
	if got := owedRowCount(t, s, "dev"); got != len(want) {
		t.Fatalf("%d owed rows written, want %d", got, len(want))
	}
	if got := owedIDs(t, s, "dev"); !slices.Equal(got, want) {
		t.Fatalf("owed by dev after the rows are written: %v, want %v", got, want)
	}
}

// TestOwedLag_PageMergesWrittenAndPending: one page holds written and
// pending rows in HLC order, and the limit and stream filter apply to
// both.
func TestOwedLag_PageMergesWrittenAndPending(t *testing.T) {
	ctx := context.Background()
	s, wall := openReplica(t, repA)
	setOwedLag(t, s, 1000, 1000)
	var all []string
	for i := range 6 {
		in := note("lead", "dev")
		in.Stream = fmt.Sprintf("s%d", i%2)
		all = append(all, mustAppend(t, s, in).ID)
		wall.Advance(time.Millisecond)
		if i == 2 {
			writeOwedRows(t, s)
		}
	}
	if got := owedRowCount(t, s, "dev"); got != 3 {
		t.Fatalf("%d owed rows written, want 3", got)
	}
	if got := owedIDs(t, s, "dev"); !slices.Equal(got, all) {
		t.Fatalf("owed = %v, want %v", got, all)
	}
	page, err := s.Owed(ctx, "dev", "", 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(page); !slices.Equal(got, all[:4]) {
		t.Fatalf("owed limit 4 = %v, want %v", got, all[:4])
	}
	page, err = s.Owed(ctx, "dev", "s1", 50)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(page); !slices.Equal(got, []string{all[1], all[3], all[5]}) {
		t.Fatalf("owed in s1 = %v, want %v", got, []string{all[1], all[3], all[5]})
	}
	scoped, err := s.OwedIn(ctx, &ReadScope{Streams: []string{"s0"}}, "dev", "", 50)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(scoped); !slices.Equal(got, []string{all[0], all[2], all[4]}) {
		t.Fatalf("owed in scope s0 = %v, want %v", got, []string{all[0], all[2], all[4]})
	}
}

// TestOwedLag_RowsPastTheMark: a crash between writing owed rows and
// saving the mark leaves rows for events past the mark; Owed still names
// each event once, before and after the rows are written again.
func TestOwedLag_RowsPastTheMark(t *testing.T) {
	dir := t.TempDir()
	wall := hlc.NewManualClock(testClockStart)
	s := openReplicaAt(t, dir, repA, wall)
	var want []string
	for range 3 {
		want = append(want, mustAppend(t, s, ask("lead", "dev", "")).ID)
		wall.Advance(time.Millisecond)
	}
	writeOwedRows(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw := openRawDB(t, dir)
	if _, err := raw.Exec(`UPDATE lsnode_meta SET value = '0' WHERE key = '` + owedMarkKey + `'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	s2 := openReplicaAt(t, dir, repA, wall)
	if got := owedRowCount(t, s2, "dev"); got != 3 {
		t.Fatalf("%d owed rows past the mark, want the 3 left there", got)
	}
	if got := owedIDs(t, s2, "dev"); !slices.Equal(got, want) {
		t.Fatalf("owed with rows past the mark = %v, want %v", got, want)
	}
	writeOwedRows(t, s2)
	if got := owedIDs(t, s2, "dev"); !slices.Equal(got, want) {
		t.Fatalf("owed after the rows are written again = %v, want %v", got, want)
	}
}

// TestOwedLag_FailedRequestLeavesNoRowid: a request that stores an event
// and then fails is undone by its savepoint, and the rowid it took is
// taken again by the next event. The owed mark must not move past that
// rowid on the failed request's account, or the next event is never
// owed.
func TestOwedLag_FailedRequestLeavesNoRowid(t *testing.T) {
	ctx := context.Background()
	s, _ := openReplica(t, repA)
	setOwedLag(t, s, 1, 1) // every commit with an owed event writes its rows
	d, err := validateAppend(note("lead", "dev"))
	if err == nil {
		err = d.ready(s.wall.Now())
	}
	if err != nil {
		t.Fatal(err)
	}
	err = s.write(ctx, func(w *writeTx) error {
		if _, err := s.appendInTx(w, d); err != nil {
			return err
		}
		return errRequestFailed // e.g. a later op's storage error
	})
	if !errors.Is(err, errRequestFailed) {
		t.Fatalf("failing request: %v", err)
	}
	e := mustAppend(t, s, note("lead", "dev"))
	if got := owedIDs(t, s, "dev"); !slices.Equal(got, []string{e.ID}) {
		t.Fatalf("owed by dev = %v, want [%s]", got, e.ID)
	}
	if got := owedRowCount(t, s, "dev"); got != 1 {
		t.Fatalf("%d owed rows written, want 1", got)
	}
}
