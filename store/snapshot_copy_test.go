package store

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// appendingWriter keeps a copy in memory and runs an append on the
// source every 16 pages written.
type appendingWriter struct {
	bytes.Buffer
	writes  int
	appends int
	append  func() error
}

func (w *appendingWriter) Write(p []byte) (int, error) {
	n, _ := w.Buffer.Write(p)
	if w.writes++; w.writes%16 == 0 {
		w.appends++
		if err := w.append(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// TestPageCopy_HoldsItsCommitWhileAppendsCommit copies a log while an
// append commits every 16 pages: the appends are never blocked by the
// copy's read transaction, and the copy is whole and holds exactly the
// log as of its start.
func TestPageCopy_HoldsItsCommitWhileAppendsCommit(t *testing.T) {
	ctx := context.Background()
	s, _ := openReplica(t, repA)
	for i := range 300 {
		if _, err := s.Append(ctx, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a",
			Body: strings.Repeat("x", 1000+i)}); err != nil {
			t.Fatal(err)
		}
	}
	before := s.VersionVector()
	w := &appendingWriter{append: func() error {
		_, err := s.Append(ctx, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "b", Body: "during the copy"})
		return err
	}}
	if err := copyPages(ctx, filepath.Join(s.cfg.Dir, DBFile), w); err != nil {
		t.Fatalf("copy: %v", err)
	}
	if w.appends < 10 {
		t.Fatalf("%d appends ran during the copy, want at least 10", w.appends)
	}
	if got := s.VersionVector()[repA]; got != before[repA]+int64(w.appends) {
		t.Errorf("source holds %d own ops after the copy, want %d + %d appended during it", got, before[repA], w.appends)
	}
	dst := filepath.Join(t.TempDir(), "copy.sqlite3")
	if err := os.WriteFile(dst, w.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := openFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check of the copy: %q, %v", check, err)
	}
	vv, err := queryVersionVector(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(vv, before) {
		t.Errorf("the copy's vector is %v, want the source's at the copy's start %v", vv, before)
	}
	var during int
	if err := db.QueryRow(`SELECT count(*) FROM events WHERE from_agent = 'b'`).Scan(&during); err != nil || during != 0 {
		t.Errorf("the copy holds %d events appended during it (%v), want 0", during, err)
	}
}

// TestPageCopy_StopsWhenItsContextEnds: a copy whose context ends fails
// with the context's error.
func TestPageCopy_StopsWhenItsContextEnds(t *testing.T) {
	s, _ := openReplica(t, repA)
	for range 50 {
		if _, err := s.Append(context.Background(), note("a", "b")); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &appendingWriter{append: func() error { cancel(); return nil }}
	err := copyPages(ctx, filepath.Join(s.cfg.Dir, DBFile), w)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("copy: %v, want context.Canceled", err)
	}
}

// autoCheckpointSetting reads the writer connection's automatic
// checkpoint threshold.
func autoCheckpointSetting(t *testing.T, s *Store) int {
	t.Helper()
	var pages int
	if err := s.write(context.Background(), func(w *writeTx) error {
		return w.tx.QueryRowContext(w.ctx, "PRAGMA wal_autocheckpoint").Scan(&pages)
	}); err != nil {
		t.Fatal(err)
	}
	return pages
}

// TestSnapshot_HoldsTheAutomaticCheckpointOffWhileItCopies: the writer's
// automatic checkpoint is off from the first copy's start to the last
// one's end, and back at its threshold after.
func TestSnapshot_HoldsTheAutomaticCheckpointOffWhileItCopies(t *testing.T) {
	ctx := context.Background()
	s, _ := openReplica(t, repA)
	if got := autoCheckpointSetting(t, s); got != autoCheckpointPages {
		t.Fatalf("automatic checkpoint at open: %d pages, want %d", got, autoCheckpointPages)
	}
	for range 2 {
		if err := s.holdAutoCheckpoint(ctx); err != nil {
			t.Fatal(err)
		}
		if got := autoCheckpointSetting(t, s); got != 0 {
			t.Fatalf("automatic checkpoint during a copy: %d pages, want 0 (off)", got)
		}
	}
	s.releaseAutoCheckpoint()
	if got := autoCheckpointSetting(t, s); got != 0 {
		t.Fatalf("automatic checkpoint while one copy still runs: %d pages, want 0 (off)", got)
	}
	s.releaseAutoCheckpoint()
	if got := autoCheckpointSetting(t, s); got != autoCheckpointPages {
		t.Fatalf("automatic checkpoint after the copies: %d pages, want %d", got, autoCheckpointPages)
	}
	path, _, err := s.Snapshot(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer RemoveSnapshot(path)
	if got := autoCheckpointSetting(t, s); got != autoCheckpointPages {
		t.Fatalf("automatic checkpoint after a snapshot: %d pages, want %d", got, autoCheckpointPages)
	}
}
