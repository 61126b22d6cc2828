package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lsnode/lsnode/hlc"
)

// feedIDs returns the ids of every feed entry, oldest first, read in
// pages of two.
func feedIDs(t testing.TB, s *Store) []string {
	t.Helper()
	var out []string
	after := int64(0)
	for {
		page, err := s.ArtifactFeedAfter(context.Background(), after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			return out
		}
		for _, e := range page {
			if e.Seq <= after {
				t.Fatalf("feed seq %d after %d", e.Seq, after)
			}
			out = append(out, e.ID)
			after = e.Seq
		}
	}
}

func putNote(t testing.TB, s *Store, content string) Artifact {
	t.Helper()
	w, err := s.PutArtifact(context.Background(), ArtifactInput{Kind: "note", Content: content, CreatedBy: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	return *w.Artifact
}

// remoteNote is a valid artifact of origin repB.
func remoteNote(n int, content string) Artifact {
	sum := sha256.Sum256([]byte(content))
	return Artifact{ID: fmt.Sprintf("art_20260101T000000_%012d", n), Kind: "note", SHA256: hex.EncodeToString(sum[:]),
		Content: content, SizeBytes: int64(len(content)), CreatedBy: "bo", CreatedAt: "2026-01-01T00:00:00Z", OriginReplica: repB}
}

// TestArtifactFeed_NumbersEveryInsert: local puts and applied remote
// artifacts get feed entries in arrival order, with their size and
// origin; a duplicate or a refused artifact gets none; ArtifactsAdded
// fires at the commit that adds entries.
func TestArtifactFeed_NumbersEveryInsert(t *testing.T) {
	ctx := context.Background()
	s, _ := openReplica(t, repA)
	if s.ArtifactFeedID() == "" || s.ArtifactFeedTop() != 0 {
		t.Fatalf("new feed: id %q top %d", s.ArtifactFeedID(), s.ArtifactFeedTop())
	}
	added := s.ArtifactsAdded()
	first := putNote(t, s, "one")
	select {
	case <-added:
	default:
		t.Fatal("ArtifactsAdded did not fire at a put")
	}
	remote := remoteNote(1, "two")
	bad := remoteNote(2, "three")
	bad.Content = "not three"
	res := mustApply(t, s, Batch{Artifacts: []Artifact{remote, bad}})
	if res.Artifacts != 1 || res.Quarantined != 1 {
		t.Fatalf("apply: %s", fmtResult(res))
	}
	added = s.ArtifactsAdded()
	mustApply(t, s, Batch{Artifacts: []Artifact{remote}}) // held: no entry
	select {
	case <-added:
		t.Fatal("ArtifactsAdded fired for a batch that added nothing")
	default:
	}
	third := putNote(t, s, "four")
	if got, want := feedIDs(t, s), []string{first.ID, remote.ID, third.ID}; !slices.Equal(got, want) {
		t.Fatalf("feed %v, want %v", got, want)
	}
	if s.ArtifactFeedTop() != 3 {
		t.Fatalf("top %d, want 3", s.ArtifactFeedTop())
	}
	page, err := s.ArtifactFeedAfter(ctx, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := (FeedEntry{Seq: 2, ID: remote.ID, SizeBytes: 3, OriginReplica: repB}); len(page) != 1 || page[0] != want {
		t.Fatalf("entry after 1: %+v, want %+v", page, want)
	}
	if _, err := s.ArtifactFeedAfter(ctx, -1, 1); err == nil {
		t.Fatal("a negative position was read")
	}
}

// TestArtifactFeed_Backfill: a file whose artifacts have no feed (one
// from before the feed, or written by the Python hub) is numbered at
// open in the order the artifacts were stored; the feed id survives a
// reopen; artifacts added behind lsnode's back are numbered after the
// others.
func TestArtifactFeed_Backfill(t *testing.T) {
	dir := t.TempDir()
	wall := hlc.NewManualClock(testClockStart)
	s := openReplicaAt(t, dir, repA, wall)
	var ids []string
	for i := range 3 {
		ids = append(ids, putNote(t, s, fmt.Sprint("note ", i)).ID)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw := openRawDB(t, dir)
	if _, err := raw.Exec(`DROP TABLE lsnode_artifact_feed; DROP TABLE lsnode_artifact_feed_id`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	s = openReplicaAt(t, dir, repA, wall)
	if got := feedIDs(t, s); !slices.Equal(got, ids) {
		t.Fatalf("backfilled feed %v, want %v", got, ids)
	}
	id := s.ArtifactFeedID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	raw = openRawDB(t, dir)
	py := remoteNote(9, "from python")
	if _, err := raw.Exec(`INSERT INTO artifacts (id, kind, sha256, size_bytes, content, created_by, created_at, metadata_json, origin_replica)
VALUES (?, ?, ?, ?, ?, ?, ?, '{}', ?)`, py.ID, py.Kind, py.SHA256, py.SizeBytes, py.Content, py.CreatedBy, py.CreatedAt, py.OriginReplica); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	s = openReplicaAt(t, dir, repA, wall)
	if s.ArtifactFeedID() != id {
		t.Fatalf("feed id changed across a reopen: %s -> %s", id, s.ArtifactFeedID())
	}
	if got, want := feedIDs(t, s), append(slices.Clone(ids), py.ID); !slices.Equal(got, want) {
		t.Fatalf("feed %v, want %v", got, want)
	}
	if s.ArtifactFeedTop() != 4 {
		t.Fatalf("top %d, want 4", s.ArtifactFeedTop())
	}
}

// TestArtifactFeed_RestoreStartsNewFeed: a restored file is numbered
// again under a new feed id, holding every artifact; the cursors into
// peers' feeds stay with the file.
func TestArtifactFeed_RestoreStartsNewFeed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	wall := hlc.NewManualClock(testClockStart)
	s := openReplicaAt(t, dir, repA, wall)
	a := putNote(t, s, "kept")
	mustApply(t, s, Batch{FeedCursor: &FeedCursor{Peer: repB, FeedID: "feedB", Seq: 7}})
	id := s.ArtifactFeedID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := PrepareRestored(ctx, filepath.Join(dir, DBFile)); err != nil {
		t.Fatal(err)
	}
	s = openReplicaAt(t, dir, repA, wall)
	if s.ArtifactFeedID() == id {
		t.Fatal("a restored file kept its feed id")
	}
	if got := feedIDs(t, s); !slices.Equal(got, []string{a.ID}) {
		t.Fatalf("restored feed %v", got)
	}
	c, err := s.ArtifactCursor(ctx, repB)
	if err != nil || c != (FeedCursor{Peer: repB, FeedID: "feedB", Seq: 7}) {
		t.Fatalf("cursor after restore %+v, %v", c, err)
	}
}

// TestArtifactFeed_Cursor: a cursor only rises within one feed, is
// replaced by one into another feed, survives a reopen, and a malformed
// one is refused with nothing stored.
func TestArtifactFeed_Cursor(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	wall := hlc.NewManualClock(testClockStart)
	s := openReplicaAt(t, dir, repA, wall)
	if c, err := s.ArtifactCursor(ctx, repB); err != nil || c != (FeedCursor{Peer: repB}) {
		t.Fatalf("no cursor: %+v, %v", c, err)
	}
	steps := []struct {
		in   FeedCursor
		want int64
	}{
		{FeedCursor{Peer: repB, FeedID: "f1", Seq: 5}, 5},
		{FeedCursor{Peer: repB, FeedID: "f1", Seq: 3}, 5}, // a late, lower cursor
		{FeedCursor{Peer: repB, FeedID: "f1", Seq: 9}, 9},
		{FeedCursor{Peer: repB, FeedID: "f2", Seq: 2}, 2}, // the peer's feed was numbered again
	}
	for _, st := range steps {
		mustApply(t, s, Batch{FeedCursor: &st.in})
		c, err := s.ArtifactCursor(ctx, repB)
		if err != nil || c.FeedID != st.in.FeedID || c.Seq != st.want {
			t.Fatalf("after %+v: %+v, %v; want seq %d", st.in, c, err, st.want)
		}
	}
	for _, bad := range []FeedCursor{{FeedID: "f", Seq: 1}, {Peer: repC, Seq: 1}, {Peer: repC, FeedID: "f", Seq: -1}} {
		if _, err := s.ApplyBatch(ctx, Batch{FeedCursor: &bad}); err == nil {
			t.Fatalf("cursor %+v accepted", bad)
		}
	}
	if c, _ := s.ArtifactCursor(ctx, repC); c.FeedID != "" {
		t.Fatalf("a refused cursor was stored: %+v", c)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openReplicaAt(t, dir, repA, wall)
	if c, err := s.ArtifactCursor(ctx, repB); err != nil || c != (FeedCursor{Peer: repB, FeedID: "f2", Seq: 2}) {
		t.Fatalf("cursor after reopen %+v, %v", c, err)
	}
}
