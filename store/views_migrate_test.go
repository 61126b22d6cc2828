package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// TestPythonFile_ViewsBuilt: a data dir the Python hub made, opened in
// place, gets its search index, claims and stamps from the events it
// holds; events the hub appends later, while lsnode is down, are indexed
// at the next Open.
func TestPythonFile_ViewsBuilt(t *testing.T) {
	dir, db := pythonFile(t, pythonDDL)
	if _, err := db.Exec(`CREATE UNIQUE INDEX IF NOT EXISTS events_origin_seq_idx ON events(origin_replica, origin_seq)`); err != nil {
		t.Fatal(err)
	}
	const hub = "rep_11111111111111111111111111111111"
	writeReplicaJSON(t, dir, `{"replica_id": "`+hub+`", "minted_at_note": "RFC 004 step 0"}`+"\n")
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	// The hub's insert: origin_seq = rowid, its own stamp, metadata as
	// json.dumps writes it.
	insert := func(id, from, to, corr, status, body, meta string, ms int64) string {
		t.Helper()
		stamp := hlc.Timestamp{WallMS: ms, Replica: hub}.String()
		res, err := db.Exec(`INSERT INTO events (id, type, stream, room, topic, from_agent, to_agent, correlation_id, branch, base_commit, status, body, created_at, metadata_json, origin_replica, hlc)
VALUES (?, 'task.request', 'project/x', 'delegation', NULL, ?, ?, ?, NULL, NULL, ?, ?, '2026-05-01T00:00:00Z', ?, ?, ?)`,
			id, from, nullable(to), nullable(corr), nullable(status), body, meta, hub, stamp)
		if err != nil {
			t.Fatal(err)
		}
		rowid, _ := res.LastInsertId()
		if _, err := db.Exec(`UPDATE events SET origin_seq = rowid WHERE rowid = ?`, rowid); err != nil {
			t.Fatal(err)
		}
		return stamp
	}
	insert("evt_20260501T000000_000000000001", "boss", "w", "c1", "open", "rotate the signing keys", "{}", base)
	claimStamp := insert("evt_20260501T000000_000000000002", "w", "boss", "c1", "claimed", "on it",
		`{"ack_of": "evt_20260501T000000_000000000001"}`, base+5)
	db.Close()

	wall := hlc.NewManualClock(time.UnixMilli(base + time.Hour.Milliseconds()))
	s := openReplicaAt(t, dir, "", wall)
	if got := searchIDs(t, s, SearchQuery{Query: "signing keys"}); !slices.Equal(got, []string{"evt_20260501T000000_000000000001"}) {
		t.Fatalf("search on the hub's file: %v", got)
	}
	aw, err := s.Awaiting(context.Background(), AwaitingQuery{Agent: "boss"})
	if err != nil || len(aw) != 1 {
		t.Fatalf("awaiting: %+v %v", aw, err)
	}
	if c := aw[0].Claim; c == nil || c.EventID != "evt_20260501T000000_000000000002" || c.From != hub || aw[0].LastHeard != claimStamp {
		t.Fatalf("awaited ask: claim %+v heard %q", c, aw[0].LastHeard)
	}
	mine := said(t, s, "w", "boss", "keys rotated")
	s.Close()

	// The hub appends while lsnode is down.
	db = openRawDB(t, dir)
	later := insert("evt_20260501T000000_000000000009", "w", "boss", "", "", "signing keys published", "{}", base+2*time.Hour.Milliseconds())
	db.Close()
	s2 := openReplicaAt(t, dir, "", wall)
	if got := searchIDs(t, s2, SearchQuery{Query: "keys", Order: SearchOldestFirst}); !slices.Equal(got,
		[]string{"evt_20260501T000000_000000000001", mine.ID, "evt_20260501T000000_000000000009"}) {
		t.Fatalf("search after the hub appended: %v", got)
	}
	if aw, err := s2.Awaiting(context.Background(), AwaitingQuery{Agent: "boss"}); err != nil || len(aw) != 1 || aw[0].LastHeard != later {
		t.Fatalf("awaiting after the hub appended: %+v %v", aw, err)
	}
	checkSearchIntegrity(t, s2)
	s2.Close()
	checkPythonSchema(t, dir)
}

// TestViews_RebuiltWhenMissing: a data dir of an earlier version, without
// the views' tables and with lsnode_owed lacking from_agent, opens with
// the views it would have had.
func TestViews_RebuiltWhenMissing(t *testing.T) {
	dir := t.TempDir()
	wall := hlc.NewManualClock(testClockStart)
	s := openReplicaAt(t, dir, repA, wall)
	e := mustAppend(t, s, ask("boss", "w", "c1"))
	wall.Advance(time.Second)
	mustAck(t, s, e.ID, "w", "claimed")
	mustAppend(t, s, ask("w", "boss", "c2"))
	said(t, s, "boss", "v", "find me later")
	want := viewsDump(t, s, []string{"boss", "w", "v"})
	wantHits := searchIDs(t, s, SearchQuery{Query: "find"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw := openRawDB(t, dir)
	for _, q := range []string{`DROP TABLE lsnode_progress`, `DROP TABLE lsnode_heard`, `DROP TABLE lsnode_search`,
		`DROP TABLE lsnode_owed`, `CREATE TABLE lsnode_owed (agent TEXT NOT NULL, hlc TEXT NOT NULL, origin_replica TEXT NOT NULL,
origin_seq INTEGER NOT NULL, stream TEXT NOT NULL, event_id TEXT NOT NULL, correlation_id TEXT,
PRIMARY KEY (agent, hlc, origin_replica, origin_seq)) WITHOUT ROWID`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	s2 := openReplicaAt(t, dir, repA, wall)
	if got := viewsDump(t, s2, []string{"boss", "w", "v"}); got != want {
		t.Fatalf("rebuilt views differ:\n%s", firstDiff(got, want))
	}
	if got := searchIDs(t, s2, SearchQuery{Query: "find"}); !slices.Equal(got, wantHits) || len(got) != 1 {
		t.Fatalf("rebuilt search: %v; want %v", got, wantHits)
	}
	checkSearchIntegrity(t, s2)
}
