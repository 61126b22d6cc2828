//go:build linux

package store

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// mountTmpfs mounts a tmpfs of size under a fresh temp dir, unmounted
// when the test ends; it skips the test where mounting is not permitted.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("needs a tmpfs, which this user cannot mount (mount: %v: %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fillFS takes every free block of the file system at dir into one file,
// whose path it returns.
func fillFS(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var off int64
	for chunk := int64(64 << 20); chunk >= 4096; {
		switch err := unix.Fallocate(int(f.Fd()), 0, off, chunk); {
		case err == nil:
			off += chunk
		case errors.Is(err, unix.ENOSPC):
			chunk /= 2
		default:
			t.Fatalf("fallocate: %v", err)
		}
	}
	return path
}

// TestWriter_FailedCommitNotStoredAfterCrash: SQLite writes a commit's
// frames to the WAL before it records them in the wal-index (the -shm
// file). On a full disk the wal-index cannot grow: the COMMIT fails and
// the transaction is rolled back, but its frames stay in the WAL, whole
// (walseal.go). The append is refused; the files as a crash leaves them
// (the WAL without its wal-index, which the next open rebuilds from the
// WAL) must not hold it either, whether the writer's seal commits or
// fails the same way.
func TestWriter_FailedCommitNotStoredAfterCrash(t *testing.T) {
	for _, c := range []struct {
		name     string
		headroom int64 // frames the wal-index maps beyond the WAL's, before the append
		sealErr  bool
	}{
		{name: "seal commits", headroom: 8},
		{name: "seal fails too", headroom: 1, sealErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := mountTmpfs(t, "64m")
			logs := &logRecorder{}
			s, err := Open(context.Background(), Config{Dir: filepath.Join(fs, "data"), ReplicaID: repA, Logger: slog.New(logs)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
			mustAppend(t, s, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a", Body: "before"})
			w := walAtIndexEnd(t, s, c.headroom)
			filler := fillFS(t, fs)
			before := s.VersionVector()
			_, err = s.Append(context.Background(), AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a", Body: strings.Repeat("z", 60<<10)})
			if err == nil {
				t.Fatal("the append committed on a full disk: it wrote no more frames than the wal-index maps")
			}
			t.Logf("append refused: %v", err)
			if got := s.VersionVector(); got[repA] != before[repA] {
				t.Fatalf("version vector %v after the refused append, %v before", got, before)
			}
			if after := crashImage(t, w.db); after[repA] != before[repA] {
				t.Errorf("after a crash the log holds %d local events, %d before the refused append: the refused append is stored",
					after[repA], before[repA])
			}
			if sealErr := logs.logged(sealWarning); sealErr != c.sealErr {
				t.Errorf("the seal's own commit failed: %v, want %v", sealErr, c.sealErr)
			}

			// With room again the writer goes on, and its vector is the file's.
			w.release()
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			mustAppend(t, s, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a", Body: "after"})
			held, err := queryVersionVector(context.Background(), s.readDB)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.VersionVector(); got[repA] != held[repA] || held[repA] != before[repA]+1 {
				t.Fatalf("version vector %v, the file's %v, %d local events before", got, held, before[repA])
			}
		})
	}
}

// logRecorder is a slog handler that keeps the messages logged.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecorder) WithGroup(string) slog.Handler            { return r }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	return nil
}

func (r *logRecorder) logged(msg string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.msgs, msg)
}

// heldWAL is a store's WAL brought to the end of its wal-index.
type heldWAL struct {
	db      string // the database file
	release func() // lets the WAL start over again
}

// walAtIndexEnd brings the WAL of s to headroom frames below the last
// frame its wal-index maps, with room reserved for the WAL to grow by
// 1 MiB: a commit that takes it past that frame writes its frames, then
// fails to grow the wal-index once the disk is full.
func walAtIndexEnd(t *testing.T, s *Store, headroom int64) heldWAL {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(s.cfg.Dir, DBFile)
	// A reader on an early snapshot keeps the WAL from starting over, so
	// that every commit adds to it.
	reader, err := s.readDB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	release := func() { _ = reader.Rollback() }
	t.Cleanup(release) // before the store closes
	var n, pageSize int64
	if err := reader.QueryRow(`SELECT count(*) FROM events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := s.readDB.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	frames := func() int64 { return (fileSize(t, db+"-wal") - 32) / (24 + pageSize) }
	// The wal-index maps 4062 frames in its first 32 KiB region and 4096
	// in each further one.
	mapped := func() int64 { return 4062 + 4096*(fileSize(t, db+"-shm")/32768-1) }
	exec := func(q string, args ...any) {
		t.Helper()
		if err := s.write(ctx, func(w *writeTx) error {
			_, err := w.tx.ExecContext(w.ctx, q, args...)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	exec(`CREATE TABLE test_pad (v)`)
	for big := strings.Repeat("x", 256<<10); frames() < mapped()-200; {
		exec(`INSERT OR REPLACE INTO lsnode_meta (key, value) VALUES ('test_pad', ?)`, big)
	}
	for frames() < mapped()-headroom { // a row of test_pad: one frame
		exec(`INSERT INTO test_pad VALUES (1)`)
	}
	if got, limit := frames(), mapped(); got != limit-headroom {
		t.Fatalf("the WAL holds %d frames, the wal-index maps %d: want %d between them", got, limit, headroom)
	}
	wal, err := os.OpenFile(db+"-wal", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wal.Close()
	if err := unix.Fallocate(int(wal.Fd()), unix.FALLOC_FL_KEEP_SIZE, fileSize(t, db+"-wal"), 1<<20); err != nil {
		t.Fatal(err)
	}
	return heldWAL{db: db, release: release}
}

// crashImage opens a copy of the database file and its WAL, as a crash
// of the process leaves them, and returns the version vector the next
// open finds.
func crashImage(t *testing.T, db string) map[string]int64 {
	t.Helper()
	dir := t.TempDir()
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(db + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, DBFile+suffix), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	copyDB, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer copyDB.Close()
	vv, err := queryVersionVector(context.Background(), copyDB)
	if err != nil {
		t.Fatal(err)
	}
	return vv
}
