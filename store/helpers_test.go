package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/hlc"
)

// Fixed replica ids for tests that need to know them in advance.
const (
	repA = "rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	repB = "rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	repC = "rep_cccccccccccccccccccccccccccccccc"
	repD = "rep_dddddddddddddddddddddddddddddddd"
)

// openReplica opens a store with a fixed replica id in a fresh temp dir,
// on its own manual clock starting at testClockStart.
func openReplica(t testing.TB, replica string) (*Store, *hlc.ManualClock) {
	t.Helper()
	wall := hlc.NewManualClock(testClockStart)
	return openReplicaAt(t, t.TempDir(), replica, wall), wall
}

// openReplicaAt opens a store in dir and closes it when the test ends.
func openReplicaAt(t testing.TB, dir, replica string, wall hlc.WallClock) *Store {
	t.Helper()
	s, err := Open(context.Background(), Config{Dir: dir, ReplicaID: replica, Wall: wall})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// tableCounts counts the rows of every table the store writes, so a test
// can show that a refused request stored nothing.
func tableCounts(t testing.TB, s *Store) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range []string{"events", "artifacts", "event_artifacts", "lsnode_quarantine",
		"lsnode_closures", "lsnode_idempotency", "lsnode_owed", "lsnode_progress", "lsnode_heard", "lsnode_search_docsize"} {
		var n int64
		if err := s.readDB.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

func sameCounts(a, b map[string]int64) bool {
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

// allOps returns every op a store holds, per origin, in origin order, as a
// peer would fetch them.
func allOps(t testing.TB, s *Store) map[string][]Op {
	t.Helper()
	out := map[string][]Op{}
	for origin := range s.VersionVector() {
		var after int64
		for {
			page, err := s.OpsAfter(context.Background(), origin, after, 500, 0)
			if err != nil {
				t.Fatalf("ops after %s/%d: %v", origin, after, err)
			}
			if len(page) == 0 {
				break
			}
			out[origin] = append(out[origin], page...)
			after = page[len(page)-1].Event.OriginSeq
		}
	}
	return out
}

// allArtifacts returns every artifact a store holds, ordered by id.
func allArtifacts(t testing.TB, s *Store) []Artifact {
	t.Helper()
	rows, err := s.readDB.Query(`SELECT id FROM artifacts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	out := make([]Artifact, 0, len(ids))
	for _, id := range ids {
		a, err := s.GetArtifact(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// exchange copies every op and artifact of from into to, one origin at a
// time, as an anti-entropy round would, and returns the apply result.
func exchange(t testing.TB, from, to *Store) ApplyResult {
	t.Helper()
	ctx := context.Background()
	var total ApplyResult
	for origin, top := range from.VersionVector() {
		after := to.VersionVector()[origin]
		if after >= top {
			continue
		}
		ops, err := from.OpsAfter(ctx, origin, after, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := Batch{Ops: ops}
		for _, op := range ops {
			for _, id := range op.Event.ArtifactIDs {
				a, err := from.GetArtifact(ctx, id)
				if err != nil {
					t.Fatalf("artifact %s: %v", id, err)
				}
				b.Artifacts = append(b.Artifacts, a)
			}
		}
		res, err := to.ApplyBatch(ctx, b)
		if err != nil {
			t.Fatalf("apply %s into %s: %v", origin, to.ReplicaID(), err)
		}
		total.Applied += res.Applied
		total.Duplicates += res.Duplicates
		total.Quarantined += res.Quarantined
		total.Deferred += res.Deferred
		total.Artifacts += res.Artifacts
	}
	return total
}

// dump is a canonical text of a store's op set: every event in
// (origin_replica, origin_seq) order as its JSON without the local seq,
// then every artifact. Two converged replicas have equal dumps.
func dump(t testing.TB, s *Store) string {
	t.Helper()
	var b strings.Builder
	ops := allOps(t, s)
	origins := make([]string, 0, len(ops))
	for o := range ops {
		origins = append(origins, o)
	}
	slices.Sort(origins)
	for _, o := range origins {
		for _, op := range ops[o] {
			e := op.Event
			e.Seq = 0
			js, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(js)
			b.WriteByte('\n')
		}
	}
	for _, a := range allArtifacts(t, s) {
		js, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(js)
		b.WriteByte('\n')
	}
	return b.String()
}

// owedIDs is Owed(agent) as a list of ids (the order is part of the answer).
func owedIDs(t testing.TB, s *Store, agent string) []string {
	t.Helper()
	evs, err := s.Owed(context.Background(), agent, "", 500)
	if err != nil {
		t.Fatalf("owed %s: %v", agent, err)
	}
	return ids(evs)
}

// wantErrText asserts err is a ValidationError of kind with exactly text.
func wantErrText(t testing.TB, err error, kind error, text string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil; want %q", text)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %T %v; want *ValidationError", err, err)
	}
	if !errors.Is(err, kind) {
		t.Errorf("err %q is not %v", err, kind)
	}
	if err.Error() != text {
		t.Errorf("err text\n got %q\nwant %q", err.Error(), text)
	}
}

// note is a minimal valid append from agent to to.
func note(from, to string) AppendInput {
	return AppendInput{Type: "note", Stream: "project/x", Room: "r", FromAgent: from, ToAgent: to}
}

func mustApply(t testing.TB, s *Store, b Batch) ApplyResult {
	t.Helper()
	res, err := s.ApplyBatch(context.Background(), b)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return res
}

func fmtResult(r ApplyResult) string {
	return fmt.Sprintf("applied=%d dup=%d quarantined=%d deferred=%d artifacts=%d missing=%v",
		r.Applied, r.Duplicates, r.Quarantined, r.Deferred, r.Artifacts, r.Missing)
}

// openRawDB opens a data dir's database file directly, as another program
// (the Python hub) would.
func openRawDB(t testing.TB, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}
