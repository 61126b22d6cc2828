package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// restoreSnapshot moves a snapshot file into a fresh data dir as its log,
// empties its node-local tables and opens it as replica.
func restoreSnapshot(t *testing.T, path, replica string) (*Store, SnapshotInfo) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Rename(path, filepath.Join(dir, DBFile)); err != nil {
		t.Fatal(err)
	}
	info, err := PrepareRestored(context.Background(), filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatalf("prepare restored: %v", err)
	}
	return openReplicaAt(t, dir, replica, hlc.NewManualClock(testClockStart)), info
}

// opsUpTo keeps the ops of each origin up to vv's entry.
func opsUpTo(all map[string][]Op, vv map[string]int64) map[string][]Op {
	out := map[string][]Op{}
	for origin, ops := range all {
		for _, op := range ops {
			if op.Event.OriginSeq <= vv[origin] {
				out[origin] = append(out[origin], op)
			}
		}
	}
	return out
}

// opKey is what two copies of an op must agree on, the local seq (the
// rowid, kept by a page copy) and the signature included.
func opKey(op Op) string {
	e := op.Event
	return fmt.Sprintf("%d|%s|%s/%d|%s|%s|%s|%q|%s|%v|%x|%d", e.Seq, e.ID, e.OriginReplica, e.OriginSeq, e.HLC, e.Type, e.Stream,
		e.Body, e.Metadata, e.ArtifactIDs, op.Signature, op.PrevSeq)
}

func sameOpSets(t *testing.T, got, want map[string][]Op) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("origins: got %d, want %d", len(got), len(want))
	}
	for origin, w := range want {
		g := got[origin]
		if len(g) != len(w) {
			t.Fatalf("origin %s: got %d ops, want %d", origin, len(g), len(w))
		}
		for i := range w {
			if opKey(g[i]) != opKey(w[i]) {
				t.Fatalf("origin %s op %d:\n got %s\nwant %s", origin, i, opKey(g[i]), opKey(w[i]))
			}
		}
	}
}

// TestSnapshot_UnderWriteLoadHoldsThePrefixAtItsVector takes a snapshot
// while appends go on, and checks that the restored store holds exactly
// the source's ops at the snapshot's vector: every origin's prefix up to
// its entry, nothing after, with the same local seqs and signatures, and
// none of the source's node-local rows.
func TestSnapshot_UnderWriteLoadHoldsThePrefixAtItsVector(t *testing.T) {
	ctx := context.Background()
	_, remote := source(t, 20)
	for i := range remote {
		remote[i].Signature = []byte(fmt.Sprintf("sig-%d", i))
	}
	src, _ := openReplica(t, repA)
	mustApply(t, src, Batch{Ops: remote})
	forged := remote[3]
	forged.Event.Body = "another body"
	if res := mustApply(t, src, Batch{Ops: []Op{forged}}); res.Quarantined != 1 {
		t.Fatalf("forged op: %s", fmtResult(res))
	}

	// The load: one writer appending until told to stop, reporting each
	// append it made.
	stop, made := make(chan struct{}), make(chan int, 1024)
	var wg sync.WaitGroup
	wg.Add(1)
	var loadErr error
	go func() {
		defer wg.Done()
		defer close(made)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := src.Append(ctx, AppendInput{Type: "note", Stream: fmt.Sprintf("s%d", i%3), Room: "r", FromAgent: "a",
				Body: strings.Repeat("y", i%200)}); err != nil {
				loadErr = err
				return
			}
			select {
			case made <- i:
			default:
			}
		}
	}()
	waitAppends := func(n int) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for seen := 0; seen < n; {
			select {
			case _, ok := <-made:
				if !ok {
					t.Fatalf("the load stopped: %v", loadErr)
				}
				seen++
			case <-deadline:
				t.Fatalf("the load made %d appends in 30s, want %d", seen, n)
			}
		}
	}
	waitAppends(200)
	path, info, err := src.Snapshot(ctx, nil)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	waitAppends(50) // the load went on after the snapshot
	close(stop)
	wg.Wait()
	if loadErr != nil {
		t.Fatal(loadErr)
	}

	final := src.VersionVector()
	if info.VersionVector[repB] != 20 || info.VersionVector[repA] < 200 || info.VersionVector[repA] >= final[repA] {
		t.Fatalf("snapshot vector %v, source now %v: want all of %s and a part of the load", info.VersionVector, final, repB)
	}
	if info.Events != info.VersionVector[repA]+20 || info.Bytes == 0 {
		t.Fatalf("snapshot info %+v", info)
	}
	restored, prepared := restoreSnapshot(t, path, repC)
	if got := restored.VersionVector(); len(got) != 2 || got[repA] != info.VersionVector[repA] || got[repB] != 20 {
		t.Fatalf("restored vector %v, snapshot's %v", got, info.VersionVector)
	}
	if len(prepared.VersionVector) != 2 || prepared.Events != info.Events {
		t.Fatalf("prepared %+v, snapshot %+v", prepared, info)
	}
	sameOpSets(t, allOps(t, restored), opsUpTo(allOps(t, src), info.VersionVector))
	if n, err := restored.QuarantinedCount(ctx); err != nil || n != 0 {
		t.Fatalf("restored quarantine: %d, %v; want it emptied", n, err)
	}
	if n, _ := src.QuarantinedCount(ctx); n != 1 {
		t.Fatalf("source quarantine: %d", n)
	}
	// The restored copy is a working log: its own writes number from 1.
	w := mustAppend(t, restored, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "c"})
	if w.OriginReplica != repC || w.OriginSeq != 1 {
		t.Fatalf("first write of the restored store: %s/%d", w.OriginReplica, w.OriginSeq)
	}
	if left, _ := filepath.Glob(filepath.Join(src.cfg.Dir, snapshotPrefix+"*")); len(left) != 0 {
		t.Fatalf("snapshot files left in the data dir: %v", left)
	}
}

func TestSnapshotDataDir_RefusesAFileWithoutTheLog(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := SnapshotDataDir(context.Background(), dir, t.TempDir(), "", nil); err == nil {
		t.Fatal("snapshot of an empty dir succeeded")
	}
	db, err := openFile(filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE events (id TEXT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tmp := t.TempDir()
	_, _, err = SnapshotDataDir(context.Background(), dir, tmp, "", nil)
	if err == nil || !strings.Contains(err.Error(), "not an lsnode log") {
		t.Fatalf("snapshot of a foreign database: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("a refused snapshot left %d files", len(left))
	}
}

func TestOpen_RemovesStaleSnapshots(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, snapshotPrefix+"123.sqlite3")
	if err := os.WriteFile(stale, []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	openReplicaAt(t, dir, repA, hlc.NewManualClock(testClockStart))
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale snapshot still there: %v", err)
	}
}

// TestSnapshot_RefusesWhenTheDiskIsTooSmall: a disk without room for the
// copy and the margin refuses the snapshot with ErrNoSpace, naming the
// bytes needed and free, and writes no file; with room, it is taken.
func TestSnapshot_RefusesWhenTheDiskIsTooSmall(t *testing.T) {
	s, _ := openTestStore(t)
	mustAppend(t, s, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a"})
	var free uint64
	freeSpace = func(string) (uint64, bool, error) { return free, true, nil }
	t.Cleanup(func() { freeSpace = diskFree })
	free = snapshotMinMargin // less than the log plus the margin
	_, _, err := s.Snapshot(context.Background(), nil)
	if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), fmt.Sprintf("and %d are free", free)) || !strings.Contains(err.Error(), "needs ") {
		t.Fatalf("snapshot on a full disk: %v, want ErrNoSpace naming the bytes", err)
	}
	if left, _ := filepath.Glob(filepath.Join(s.cfg.Dir, snapshotPrefix+"*")); len(left) != 0 {
		t.Fatalf("a refused snapshot left %v", left)
	}
	free = 1 << 40
	path, _, err := s.Snapshot(context.Background(), nil)
	if err != nil {
		t.Fatalf("snapshot with room: %v", err)
	}
	RemoveSnapshot(path)
}
