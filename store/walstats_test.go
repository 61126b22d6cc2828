package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// walStats describes the frames of the WAL's current generation (those
// written since SQLite last started the file over): how many there are,
// how many commits they hold and which b-tree each frame's page belongs
// to. A commit writes every page it dirtied as one frame, so frames per
// commit is what a commit costs in WAL writes, and the spread over
// b-trees shows which tables and indexes make it so.
type walStats struct {
	frames, commits int
	byTree          map[string]int // b-tree name (dbstat) -> frames; "" for pages no b-tree holds now
}

// framesPerCommit is the mean number of frames a commit wrote.
func (w walStats) framesPerCommit() float64 {
	if w.commits == 0 {
		return 0
	}
	return float64(w.frames) / float64(w.commits)
}

// top renders the n b-trees with most frames, each with its frames per commit.
func (w walStats) top(n int) string {
	names := make([]string, 0, len(w.byTree))
	for name := range w.byTree {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(w.byTree[b], w.byTree[a]), cmp.Compare(a, b))
	})
	var parts []string
	for _, name := range names[:min(n, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %.1f", cmp.Or(name, "(freed)"), float64(w.byTree[name])/float64(max(1, w.commits))))
	}
	return strings.Join(parts, ", ")
}

// WAL file layout (https://sqlite.org/fileformat2.html#walformat): a
// 32-byte header whose bytes 8-11 hold the page size and 16-23 the two
// salts, then frames of a 24-byte header and one page. A frame header
// holds the page number (0-3), the database size in pages for a commit
// frame and 0 otherwise (4-7), and the salts of its generation (8-15).
const (
	walHeaderSize      = 32
	walFrameHeaderSize = 24
)

// readWALStats reads the WAL of the store in dir; q maps page numbers to
// b-tree names through the dbstat table.
func readWALStats(ctx context.Context, dir string, q querier) (walStats, error) {
	raw, err := os.ReadFile(filepath.Join(dir, DBFile+"-wal"))
	if err != nil {
		return walStats{}, err
	}
	if len(raw) < walHeaderSize {
		return walStats{}, fmt.Errorf("WAL of %d bytes has no header", len(raw))
	}
	pageSize := int(binary.BigEndian.Uint32(raw[8:12]))
	salts := raw[16:24]
	names, err := pageNames(ctx, q)
	if err != nil {
		return walStats{}, err
	}
	st := walStats{byTree: map[string]int{}}
	for off := walHeaderSize; off+walFrameHeaderSize+pageSize <= len(raw); off += walFrameHeaderSize + pageSize {
		hdr := raw[off : off+walFrameHeaderSize]
		if string(hdr[8:16]) != string(salts) {
			break // a frame of an earlier generation: the current one ends here
		}
		st.frames++
		st.byTree[names[binary.BigEndian.Uint32(hdr[0:4])]]++
		if binary.BigEndian.Uint32(hdr[4:8]) != 0 {
			st.commits++
		}
	}
	return st, nil
}

func pageNames(ctx context.Context, q querier) (map[uint32]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT pageno, name FROM dbstat`)
	if err != nil {
		return nil, fmt.Errorf("read dbstat: %w", err)
	}
	defer rows.Close()
	names := map[uint32]string{}
	for rows.Next() {
		var page uint32
		var name string
		if err := rows.Scan(&page, &name); err != nil {
			return nil, err
		}
		names[page] = name
	}
	return names, rows.Err()
}

// reportWALStats reports the WAL frames per commit of the store in dir and
// logs the b-trees that wrote most of them.
func reportWALStats(b *testing.B, s *Store, dir string) {
	st, err := readWALStats(context.Background(), dir, s.readDB)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(st.framesPerCommit(), "wal-frames/commit")
	b.Logf("WAL frames per commit by b-tree over the last %d commits: %s", st.commits, st.top(6))
}

// TestReadWALStats checks the WAL reader on a file with no checkpointer
// beside it, so the WAL is never started over: each insert is a commit of
// its own and dirties a page of the table and one of its index.
func TestReadWALStats(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", WriterDSN(filepath.Join(dir, DBFile), false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX notes_body_idx ON notes(body)`); err != nil {
		t.Fatal(err)
	}
	before, err := readWALStats(ctx, dir, db)
	if err != nil {
		t.Fatal(err)
	}
	const commits = 5
	for i := range commits {
		if _, err := db.ExecContext(ctx, `INSERT INTO notes (body) VALUES (?)`, fmt.Sprint("note ", i)); err != nil {
			t.Fatal(err)
		}
	}
	after, err := readWALStats(ctx, dir, db)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.commits - before.commits; got != commits {
		t.Fatalf("commits: %d new, want %d (before %+v, after %+v)", got, commits, before, after)
	}
	for _, tree := range []string{"notes", "notes_body_idx"} {
		if got := after.byTree[tree] - before.byTree[tree]; got != commits {
			t.Errorf("%s: %d new frames, want one a commit (%d)", tree, got, commits)
		}
	}
	if got, want := after.frames-before.frames, 2*commits; got != want {
		t.Errorf("frames: %d new, want %d (two pages a commit: %s)", got, want, after.top(4))
	}
}
