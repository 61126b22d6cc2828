package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/hlc"
)

// derivedRows is every row of the derived tables, in a canonical order.
func derivedRows(t *testing.T, s *Store) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT event_id, agent || ' ' || from_agent, stream, hlc, origin_replica, origin_seq, coalesce(correlation_id, '') FROM lsnode_owed ORDER BY event_id`,
		`SELECT event_id, agent, coalesce(ack_of, ''), coalesce(correlation_id, ''), hlc, coalesce(ctx_json, ''), '' FROM lsnode_closures ORDER BY event_id`,
		`SELECT kind, from_agent, key, item_id, rank, canonical, '' FROM lsnode_idempotency ORDER BY kind, from_agent, key, item_id`,
		`SELECT event_id, agent, correlation_id, hlc, status || ' ' || coalesce(ack_of, ''), origin_replica, coalesce(ctx_json, '') FROM lsnode_progress ORDER BY event_id`,
		`SELECT agent, hlc, '', '', '', '', '' FROM lsnode_heard ORDER BY agent`,
	} {
		rows, err := s.readDB.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c [7]string
			if err := rows.Scan(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6]); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, strings.Join(c[:], "|"))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		b.WriteString("--\n")
	}
	return b.String()
}

func storedWatermark(t *testing.T, s *Store) int64 {
	t.Helper()
	n, err := watermark(context.Background(), s.readDB, "indexed_event_rowid")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWatermarks_SavedLazilyAndReindexIdempotent: the indexing watermarks
// are not rewritten by every commit but are saved at Close; a file whose
// watermarks lag (a crash before the next save) re-indexes at Open into
// exactly the derived rows it had.
func TestWatermarks_SavedLazilyAndReindexIdempotent(t *testing.T) {
	dir := t.TempDir()
	wall := hlc.NewManualClock(testClockStart)
	s := openReplicaAt(t, dir, repA, wall)
	ctx := context.Background()
	ask := mustAppend(t, s, AppendInput{Type: "task.request", Stream: "p", Room: "r", FromAgent: "lead", ToAgent: "dev",
		CorrelationID: "t-1", Status: "open", Body: "do it"})
	mustAppend(t, s, AppendInput{Type: "task.request", Stream: "p", Room: "r", FromAgent: "lead", ToAgent: "qa",
		CorrelationID: "t-2", Status: "open", Body: "check it", IdempotencyKey: "k-1"})
	mustAppend(t, s, AppendInput{Type: "task.request", Stream: "p", Room: "r", FromAgent: "lead", ToAgent: "qa",
		CorrelationID: "t-2", Status: "open", Body: "check it", IdempotencyKey: "k-1"}) // a retry
	mustAppend(t, s, AppendInput{Type: "task.request", Stream: "p", Room: "r", FromAgent: "lead", ToAgent: "ops",
		CorrelationID: "t-3", Status: "open", Body: "ship it"})
	if _, err := s.Ack(ctx, AckInput{EventID: ask.ID, FromAgent: "dev", Status: "applied"}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, AppendInput{Type: "reply", Stream: "p", Room: "r", FromAgent: "ops", ToAgent: "lead",
		CorrelationID: "t-3", Status: "blocked", Body: "no"})
	if got := storedWatermark(t, s); got >= ask.Seq {
		t.Fatalf("watermark %d saved by a small commit; want it left for later", got)
	}
	writeOwedRows(t, s)
	want := derivedRows(t, s)
	owedBefore := map[string][]string{}
	for _, agent := range []string{"dev", "qa", "ops", "lead"} {
		owedBefore[agent] = owedIDs(t, s, agent)
	}
	if len(owedBefore["qa"]) != 1 || len(owedBefore["dev"]) != 0 || len(owedBefore["ops"]) != 0 {
		t.Fatalf("owed before restart: %v", owedBefore)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	raw := openRawDB(t, dir)
	var top, saved int64
	if err := raw.QueryRow(`SELECT max(rowid), (SELECT value FROM lsnode_meta WHERE key = 'indexed_event_rowid') FROM events`).Scan(&top, &saved); err != nil {
		t.Fatal(err)
	}
	if saved != top {
		t.Fatalf("watermark %d after Close, want the top rowid %d", saved, top)
	}
	// As if the process had died before any save, and before the owed
	// rows were written.
	if _, err := raw.Exec(`UPDATE lsnode_meta SET value = '0' WHERE key IN ('indexed_event_rowid', 'indexed_artifact_rowid', '` + owedMarkKey + `');
DELETE FROM lsnode_owed`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	s2 := openReplicaAt(t, dir, repA, wall)
	for agent, ids := range owedBefore {
		if got := owedIDs(t, s2, agent); strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Errorf("owed(%s) = %v after re-indexing, before the owed rows are written, want %v", agent, got, ids)
		}
	}
	if got := writtenDerivedRows(t, s2); got != want {
		t.Fatalf("derived rows after re-indexing differ:\n%s", firstDiff(want, got))
	}
	for agent, ids := range owedBefore {
		if got := owedIDs(t, s2, agent); strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Errorf("owed(%s) = %v after re-indexing, want %v", agent, got, ids)
		}
	}
}
