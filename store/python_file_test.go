package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// preReplicationDDL is the Python hub's schema before replication (RFC 003
// §3.1, docs/architecture.md#rfcs, without origin_replica, origin_seq and
// hlc; no topic; artifacts without origin_replica), as a file written by
// that era holds it.
const preReplicationDDL = `
CREATE TABLE IF NOT EXISTS events (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    stream TEXT NOT NULL,
    room TEXT NOT NULL,
    from_agent TEXT NOT NULL,
    to_agent TEXT,
    correlation_id TEXT,
    branch TEXT,
    base_commit TEXT,
    status TEXT,
    body TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    metadata_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS events_stream_created_idx ON events(stream, created_at);
CREATE INDEX IF NOT EXISTS events_correlation_idx ON events(correlation_id, created_at);
CREATE INDEX IF NOT EXISTS events_to_agent_idx ON events(to_agent, created_at);
CREATE INDEX IF NOT EXISTS events_type_idx ON events(type, created_at);
CREATE TABLE IF NOT EXISTS artifacts (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    content TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    metadata_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS artifacts_sha256_idx ON artifacts(sha256);
CREATE TABLE IF NOT EXISTS event_artifacts (
    event_id TEXT NOT NULL,
    artifact_id TEXT NOT NULL,
    PRIMARY KEY (event_id, artifact_id)
);
`

// pythonFile creates logstream.sqlite3 in a fresh dir with ddl, in WAL
// mode as the hub runs it.
func pythonFile(t *testing.T, ddl string) (string, *sql.DB) {
	t.Helper()
	dir := t.TempDir()
	db := openRawDB(t, dir)
	if _, err := db.Exec(`PRAGMA journal_mode=WAL`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ddl); err != nil {
		t.Fatal(err)
	}
	return dir, db
}

func writeReplicaJSON(t *testing.T, dir, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ReplicaFile), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestPythonFile_PreReplicationMigrates(t *testing.T) {
	dir, db := pythonFile(t, preReplicationDDL)
	const legacy = "rep_0a1b2c3d4e5f"
	writeReplicaJSON(t, dir, `{"replica_id": "`+legacy+`", "minted_at_note": "RFC 004 step 0"}`+"\n")
	// Rows as the pre-replication hub inserts them; a deleted row leaves a
	// rowid gap, and one created_at is unparsable.
	rows := []struct{ id, to, corr, status, created string }{
		{"evt_20260101T100000_000000000001", "w@1", "c1", "open", "2026-01-01T10:00:00Z"},
		{"evt_20260101T100001_000000000002", "boss@1", "c1", "applied", "2026-01-01T10:00:01Z"},
		{"evt_20260101T100002_000000000003", "gone", "", "", "2026-01-01T10:00:02Z"},
		{"evt_20260101T100003_000000000004", "w@1", "c2", "open", "not a time"},
	}
	for i, r := range rows {
		from := "boss@1"
		if i == 1 {
			from = "w@1"
		}
		if _, err := db.Exec(`INSERT INTO events (id, type, stream, room, from_agent, to_agent, correlation_id, branch, base_commit, status, body, created_at, metadata_json)
VALUES (?, 'task.request', 'project/x', 'delegation', ?, ?, ?, NULL, NULL, ?, 'body', ?, '{}')`,
			r.id, from, r.to, nullable(r.corr), nullable(r.status), r.created); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`DELETE FROM events WHERE id = 'evt_20260101T100002_000000000003'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO artifacts (id, kind, sha256, size_bytes, content, created_by, created_at, metadata_json)
VALUES ('art_20260101T100000_00000000000a', 'note', 'x', 1, 'n', 'boss@1', '2026-01-01T10:00:00Z', '{}')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	wall := hlc.NewManualClock(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	s, err := Open(context.Background(), Config{Dir: dir, Wall: wall})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ReplicaID() != legacy {
		t.Fatalf("replica id %s; want the legacy %s from replica.json", s.ReplicaID(), legacy)
	}
	evs := allEventsBySeq(t, s)
	if len(evs) != 3 {
		t.Fatalf("%d events", len(evs))
	}
	wantSeq := []int64{1, 2, 4}
	wantMS := []int64{time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC).UnixMilli(), time.Date(2026, 1, 1, 10, 0, 1, 0, time.UTC).UnixMilli(), 0}
	for i, e := range evs {
		want := hlc.Timestamp{WallMS: wantMS[i], Counter: uint32(wantSeq[i]), Replica: legacy}.String()
		if e.OriginReplica != legacy || e.OriginSeq != wantSeq[i] || e.Seq != wantSeq[i] || e.HLC != want || e.Topic != "" {
			t.Errorf("backfilled %s: origin %s/%d seq %d hlc %s; want %s/%d hlc %s", e.ID, e.OriginReplica, e.OriginSeq, e.Seq, e.HLC, legacy, wantSeq[i], want)
		}
	}
	a, err := s.GetArtifact(context.Background(), "art_20260101T100000_00000000000a")
	if err != nil || a.OriginReplica != legacy {
		t.Fatalf("artifact origin %q %v", a.OriginReplica, err)
	}
	if vv := s.VersionVector(); len(vv) != 1 || vv[legacy] != 4 {
		t.Fatalf("vv = %v", vv)
	}
	// Derived views are built for the legacy rows.
	wantOwed(t, s, "w@1", "evt_20260101T100003_000000000004")
	// New local events continue above the backfilled max, gap-free from there.
	e1 := mustAppend(t, s, note("boss@1", "w@1"))
	e2 := mustAppend(t, s, note("boss@1", "w@1"))
	if e1.OriginSeq != 5 || e2.OriginSeq != 6 {
		t.Fatalf("new origin_seqs %d, %d; want 5, 6", e1.OriginSeq, e2.OriginSeq)
	}
	if e1.HLC <= evs[1].HLC {
		t.Fatalf("new stamp %s not after backfilled %s", e1.HLC, evs[1].HLC)
	}
	res, err := s.List(context.Background(), Filter{ToAgent: "w@1", Order: "asc"})
	if err != nil || len(res.Events) != 4 {
		t.Fatalf("list: %v %v", ids(res.Events), err)
	}
	s.Close()
	checkPythonSchema(t, dir)

	// Opening again neither re-backfills nor renumbers.
	s2 := openReplicaAt(t, dir, legacy, wall)
	if got := allEventsBySeq(t, s2); len(got) != 5 || got[4].OriginSeq != 6 || got[0].HLC != evs[0].HLC {
		t.Fatalf("reopen: %d events", len(got))
	}
}

func TestPythonFile_ReplicationEraOpens(t *testing.T) {
	dir, db := pythonFile(t, pythonDDL)
	if _, err := db.Exec(`CREATE UNIQUE INDEX IF NOT EXISTS events_origin_seq_idx ON events(origin_replica, origin_seq)`); err != nil {
		t.Fatal(err)
	}
	const me = "rep_11111111111111111111111111111111"
	const peer = "rep_22222222222222222222222222222222"
	writeReplicaJSON(t, dir, `{"replica_id": "`+me+`", "minted_at_note": "RFC 004 step 0"}`+"\n")
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	// The hub: local rows take origin_seq = rowid; a remote row keeps its own.
	insert := func(id, origin string, originSeq int64, ms int64, to string) {
		t.Helper()
		stamp := hlc.Timestamp{WallMS: ms, Replica: origin}.String()
		res, err := db.Exec(`INSERT INTO events (id, type, stream, room, topic, from_agent, to_agent, correlation_id, branch, base_commit, status, body, created_at, metadata_json, origin_replica, hlc)
VALUES (?, 'note', 's', 'r', NULL, 'x', ?, NULL, NULL, NULL, NULL, '', '2026-05-01T00:00:00Z', '{}', ?, ?)`, id, to, origin, stamp)
		if err != nil {
			t.Fatal(err)
		}
		rowid, _ := res.LastInsertId()
		if originSeq == 0 {
			originSeq = rowid
		}
		if _, err := db.Exec(`UPDATE events SET origin_seq = ? WHERE rowid = ?`, originSeq, rowid); err != nil {
			t.Fatal(err)
		}
	}
	insert("evt_20260501T000000_000000000001", me, 0, base, "w")
	insert("evt_20260501T000000_000000000002", peer, 7, base+5, "w")
	insert("evt_20260501T000000_000000000003", me, 0, base+9, "*")
	db.Close()

	wall := hlc.NewManualClock(time.UnixMilli(base)) // the wall clock has not moved past the stored stamps
	s := openReplicaAt(t, dir, "", wall)
	if s.ReplicaID() != me {
		t.Fatalf("replica %s", s.ReplicaID())
	}
	if vv := s.VersionVector(); vv[me] != 3 || vv[peer] != 7 {
		t.Fatalf("vv = %v", vv)
	}
	e := mustAppend(t, s, note("x", "w"))
	if e.OriginSeq != 4 {
		t.Fatalf("local counter continues at %d; want 4", e.OriginSeq)
	}
	if e.HLC <= (hlc.Timestamp{WallMS: base + 9, Replica: me}).String() {
		t.Fatalf("new stamp %s not after the stored ones", e.HLC)
	}
	wantOwed(t, s, "w", "evt_20260501T000000_000000000001", "evt_20260501T000000_000000000002", e.ID)
	s.Close()
	checkPythonSchema(t, dir)
}

// checkPythonSchema asserts the file still has every table, column and
// index the Python hub reads or creates, and passes integrity_check.
func checkPythonSchema(t *testing.T, dir string) {
	t.Helper()
	db := openRawDB(t, dir)
	defer db.Close()
	want := map[string][]string{
		"events": {"id", "type", "stream", "room", "topic", "from_agent", "to_agent", "correlation_id", "branch",
			"base_commit", "status", "body", "created_at", "metadata_json", "origin_replica", "origin_seq", "hlc"},
		"artifacts":       {"id", "kind", "sha256", "size_bytes", "content", "created_by", "created_at", "metadata_json", "origin_replica"},
		"event_artifacts": {"event_id", "artifact_id"},
	}
	for table, cols := range want {
		rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		var have []string
		for rows.Next() {
			var c string
			rows.Scan(&c)
			have = append(have, c)
		}
		rows.Close()
		for _, c := range cols {
			if !slices.Contains(have, c) {
				t.Errorf("%s lacks column %s (has %v)", table, c, have)
			}
		}
	}
	for _, idx := range []string{"events_stream_created_idx", "events_correlation_idx", "events_to_agent_idx", "events_type_idx",
		"events_topic_created_idx", "events_origin_seq_idx", "events_hlc_idx", "artifacts_sha256_idx"} {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?`, idx).Scan(&n); err != nil || n != 1 {
			t.Errorf("index %s missing", idx)
		}
	}
	var unique int
	db.QueryRow(`SELECT "unique" FROM pragma_index_list('events') WHERE name = 'events_origin_seq_idx'`).Scan(&unique)
	if unique != 1 {
		t.Error("events_origin_seq_idx is not unique")
	}
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check = %q %v", ok, err)
	}
	// The hub's own statements still run: its insert and its list query.
	if _, err := db.Exec(`INSERT INTO events (id, type, stream, room, topic, from_agent, to_agent, correlation_id, branch, base_commit, status, body, created_at, metadata_json, origin_replica, hlc)
VALUES ('evt_python_probe', 'note', 's', 'r', NULL, 'py', NULL, NULL, NULL, NULL, NULL, '', '2026-01-01T00:00:00Z', '{}', 'rep_999999999999', '0000000000000-000000-rep_999999999999')`); err != nil {
		t.Errorf("the hub's insert fails on this file: %v", err)
	}
	if _, err := db.Exec(`DELETE FROM events WHERE id = 'evt_python_probe'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`SELECT rowid, * FROM events WHERE (to_agent = ? OR to_agent = '*') ORDER BY rowid DESC LIMIT 50`, "w"); err != nil {
		t.Errorf("the hub's list fails on this file: %v", err)
	}
}

func TestReplicaJSON(t *testing.T) {
	t.Run("minted format", func(t *testing.T) {
		dir := t.TempDir()
		id, err := LoadOrMintReplicaID(dir)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(dir, ReplicaFile))
		if err != nil {
			t.Fatal(err)
		}
		want := "{\n  \"replica_id\": \"" + id + "\",\n  \"minted_at_note\": \"RFC 004 step 0\"\n}\n"
		if string(raw) != want {
			t.Fatalf("replica.json\n got %q\nwant %q", raw, want)
		}
		if len(id) != 36 || !ValidReplicaID(id) {
			t.Fatalf("minted %q", id)
		}
		if _, err := os.Stat(filepath.Join(dir, ReplicaFile+".tmp")); !errors.Is(err, os.ErrNotExist) {
			t.Error("temp file left behind")
		}
		again, err := LoadOrMintReplicaID(dir)
		if err != nil || again != id {
			t.Fatalf("second load %q %v; never rotated", again, err)
		}
	})
	t.Run("legacy 12 hex accepted", func(t *testing.T) {
		dir := t.TempDir()
		writeReplicaJSON(t, dir, `{"replica_id": "rep_abcdefabcdef"}`)
		if id, err := LoadOrMintReplicaID(dir); err != nil || id != "rep_abcdefabcdef" {
			t.Fatalf("%q %v", id, err)
		}
	})
	cases := []struct {
		name, body, want string
	}{
		{"corrupt", `{"replica_id": `, "%s is corrupt (unexpected end of JSON input); refusing to mint a second replica identity for this palace — restore or delete the file explicitly"},
		{"invalid id", `{"replica_id": "rep_XYZ"}`, "%s holds an invalid replica_id 'rep_XYZ'; refusing to mint a second identity — restore or delete the file explicitly"},
		{"missing id", `{}`, "%s holds an invalid replica_id ''; refusing to mint a second identity — restore or delete the file explicitly"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeReplicaJSON(t, dir, tc.body)
			path := filepath.Join(dir, ReplicaFile)
			_, err := LoadOrMintReplicaID(dir)
			if !errors.Is(err, ErrCorruptReplica) {
				t.Fatalf("err = %v", err)
			}
			want := strings.Replace(tc.want, "%s", path, 1)
			if !strings.HasSuffix(err.Error(), want) {
				t.Fatalf("err\n got %q\nwant suffix %q", err, want)
			}
			// Open refuses too, and leaves the file alone.
			if _, err := Open(context.Background(), Config{Dir: dir}); !errors.Is(err, ErrCorruptReplica) {
				t.Fatalf("Open err = %v", err)
			}
			if raw, _ := os.ReadFile(path); string(raw) != tc.body {
				t.Fatal("the file was rewritten")
			}
		})
	}
	if _, err := Open(context.Background(), Config{Dir: t.TempDir(), ReplicaID: "rep_nope"}); err == nil {
		t.Error("an invalid ReplicaID override was accepted")
	}
}

// TestPythonFile_SearchAsAScan: a data dir the Python hub made, with no
// search index, opened in place, gets one built over every event it
// holds; Search then finds the hub's events by body word, type, stream,
// writer and addressee exactly as a scan of the events does, and so too
// once lsnode has appended events and once the hub has appended more
// while lsnode was down.
func TestPythonFile_SearchAsAScan(t *testing.T) {
	dir, db := pythonFile(t, pythonDDL)
	if _, err := db.Exec(`CREATE UNIQUE INDEX IF NOT EXISTS events_origin_seq_idx ON events(origin_replica, origin_seq)`); err != nil {
		t.Fatal(err)
	}
	const hub = "rep_11111111111111111111111111111111"
	writeReplicaJSON(t, dir, `{"replica_id": "`+hub+`", "minted_at_note": "RFC 004 step 0"}`+"\n")
	rng := rand.New(rand.NewPCG(5, 5))
	gen := newBenchGen(5) // bodies of the bench vocabulary
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	// No value's words are a run of another's: a phrase search on a
	// field finds the events whose field equals the value.
	types := []string{"task.request", "task.reply", "note", "event.ack"}
	streams := []string{"project/x", "project/y", "ops"}
	agents := []string{"boss@1", "w-1", "w-2", "ci-bot"}
	ms := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	// The hub's insert: origin_seq = rowid, its own stamp.
	hubInsert := func(n int) {
		t.Helper()
		for range n {
			ms += int64(1 + rng.IntN(50))
			at := time.UnixMilli(ms).UTC()
			res, err := db.Exec(`INSERT INTO events (id, type, stream, room, topic, from_agent, to_agent, correlation_id, branch, base_commit, status, body, created_at, metadata_json, origin_replica, hlc)
VALUES (?, ?, ?, 'delegation', NULL, ?, ?, NULL, NULL, NULL, NULL, ?, ?, '{}', ?, ?)`,
				fmt.Sprintf("evt_%s_%012x", at.Format("20060102T150405"), ms), pick(types), pick(streams), pick(agents),
				nullable(pick(append([]string{"", "*"}, agents...))), gen.body(), createdAt(at), hub, hlc.Timestamp{WallMS: ms, Replica: hub}.String())
			if err != nil {
				t.Fatal(err)
			}
			rowid, _ := res.LastInsertId()
			if _, err := db.Exec(`UPDATE events SET origin_seq = rowid WHERE rowid = ?`, rowid); err != nil {
				t.Fatal(err)
			}
		}
	}
	hubInsert(400)
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'lsnode_search%'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("the hub's file has %d search tables (%v); want none", tables, err)
	}
	db.Close()

	wall := hlc.NewManualClock(time.UnixMilli(ms + time.Hour.Milliseconds()))
	s := openReplicaAt(t, dir, "", wall)
	raw := openRawDB(t, dir)
	var indexed int
	if err := raw.QueryRow(`SELECT count(*) FROM lsnode_search_docsize`).Scan(&indexed); err != nil || indexed != 400 {
		t.Fatalf("Open indexed %d events (%v); want the hub's 400", indexed, err)
	}
	raw.Close()
	checkSearchIntegrity(t, s)
	wantSearchAsAScan(t, s, rng, types, streams, agents)

	for range 100 {
		wall.Advance(time.Duration(1+rng.IntN(50)) * time.Millisecond)
		mustAppend(t, s, AppendInput{Type: pick(types), Stream: pick(streams), Room: "r", FromAgent: pick(agents),
			ToAgent: pick(append([]string{"", "*"}, agents...)), Body: gen.body()})
	}
	wantSearchAsAScan(t, s, rng, types, streams, agents)
	s.Close()

	db = openRawDB(t, dir)
	ms = wall.Now().UnixMilli()
	hubInsert(100)
	db.Close()
	s2 := openReplicaAt(t, dir, "", wall)
	checkSearchIntegrity(t, s2)
	wantSearchAsAScan(t, s2, rng, types, streams, agents)
	s2.Close()
	checkPythonSchema(t, dir)
}

// wantSearchAsAScan checks, for every type, stream and agent and for a
// dozen words of the bodies held, that a search of the field finds the
// events, in HLC order, that a scan finds: those whose field equals the
// value, or whose body holds the word.
func wantSearchAsAScan(t *testing.T, s *Store, rng *rand.Rand, types, streams, agents []string) {
	t.Helper()
	var evs []Event
	for _, ops := range allOps(t, s) {
		for _, op := range ops {
			evs = append(evs, op.Event)
		}
	}
	slices.SortFunc(evs, compareOpOrder)
	type probe struct {
		query string
		match func(Event) bool
	}
	var probes []probe
	for _, v := range types {
		probes = append(probes, probe{`type:"` + v + `"`, func(e Event) bool { return e.Type == v }})
	}
	for _, v := range streams {
		probes = append(probes, probe{`stream:"` + v + `"`, func(e Event) bool { return e.Stream == v }})
	}
	for _, v := range agents {
		probes = append(probes, probe{`from_agent:"` + v + `"`, func(e Event) bool { return e.FromAgent == v }},
			probe{`to_agent:"` + v + `"`, func(e Event) bool { return e.ToAgent == v }})
	}
	for range 12 {
		words := strings.Fields(evs[rng.IntN(len(evs))].Body)
		word := words[rng.IntN(len(words))]
		probes = append(probes, probe{"body:" + word, func(e Event) bool { return slices.Contains(strings.Fields(e.Body), word) }})
	}
	for _, p := range probes {
		var want []string
		for _, e := range evs {
			if p.match(e) {
				want = append(want, e.ID)
			}
		}
		if got := searchAllIDs(t, s, p.query); !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s: search %s found %d events, a scan %d", s.ReplicaID(), p.query, len(got), len(want))
		}
	}
}
