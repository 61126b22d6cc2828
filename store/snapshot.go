package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Snapshots (docs/operations.md, "Backups"). A snapshot is a page-for-page
// copy of the log database read in one read transaction on a connection
// of its own (snapshot_copy.go), so the copy is the database as of one
// commit. In WAL mode a reader never blocks the writer, so appends go on
// while it runs. A page copy keeps every rowid, which the local seq, the
// signatures (lsnode_op_signatures) and the indexing watermarks refer to;
// VACUUM INTO rebuilds the tables and promises no rowid of a table
// without an INTEGER PRIMARY KEY (events has none).

// SnapshotInfo describes a snapshot file: what the copy holds, read from
// the copy itself, so it describes exactly the state copied.
type SnapshotInfo struct {
	// VersionVector is the copy's version vector (the prefix held of
	// every origin).
	VersionVector map[string]int64
	Events        int64 // events held (the newest local seq)
	Artifacts     int64
	Bytes         int64         // size of the snapshot file
	Took          time.Duration // time to copy (and sign)
	// Signed is the number of the node's own ops signed into the copy
	// (snapshot_sign.go), in SignTook.
	Signed   int64
	SignTook time.Duration
}

// snapshotPrefix starts the name of a snapshot being made in a data dir;
// Open removes any left by a process that died while making one.
const snapshotPrefix = ".lsnode-snapshot-"

// Snapshot writes a consistent copy of the log to a new file in the data
// dir and returns its path and what it holds; the caller removes the
// file. Writes go on meanwhile. sign, when set, signs into the copy the
// store's own ops that carry no stored signature (snapshot_sign.go); the
// live database is never written.
func (s *Store) Snapshot(ctx context.Context, sign SignFunc) (string, SnapshotInfo, error) {
	return snapshotDB(ctx, filepath.Join(s.cfg.Dir, DBFile), s.cfg.Dir, s.ReplicaID(), sign, s.copyLive) // snapshot_ckpt.go
}

// SnapshotDataDir is Snapshot for the data dir of a stopped node, whose
// lock the caller holds: the copy goes to a new file in tmpDir, and sign,
// when set, signs the ops of origin (the dir's replica id) into it.
func SnapshotDataDir(ctx context.Context, dir, tmpDir, origin string, sign SignFunc) (string, SnapshotInfo, error) {
	src := filepath.Join(dir, DBFile)
	if _, err := os.Stat(src); err != nil {
		return "", SnapshotInfo{}, fmt.Errorf("no log in %s: %w", dir, err)
	}
	return snapshotDB(ctx, src, tmpDir, origin, sign, copyPagesToFile)
}

// snapshotDB copies the database at src into a new file in dir with
// copyDB (snapshot_copy.go) and signs origin's ops into the copy.
func snapshotDB(ctx context.Context, src, dir, origin string, sign SignFunc, copyDB func(ctx context.Context, src, dst string) error) (string, SnapshotInfo, error) {
	if err := checkSnapshotSpace(src, dir); err != nil { // snapshot_space.go
		return "", SnapshotInfo{}, err
	}
	start := time.Now()
	f, err := os.CreateTemp(dir, snapshotPrefix+"*.sqlite3")
	if err != nil {
		return "", SnapshotInfo{}, fmt.Errorf("create snapshot file: %w", err)
	}
	dst := f.Name()
	f.Close()
	fail := func(err error) (string, SnapshotInfo, error) {
		removeDBFiles(dst)
		return "", SnapshotInfo{}, err
	}
	if err := copyDB(ctx, src, dst); err != nil {
		return fail(err)
	}
	info, err := describeSnapshot(ctx, dst, origin, sign)
	if err != nil {
		return fail(err)
	}
	info.Took = time.Since(start)
	return dst, info, nil
}

// describeSnapshot signs origin's ops into the snapshot at path (when
// sign is set) and reads what it holds. Closing its only connection folds
// its WAL back into the file, which is then whole.
func describeSnapshot(ctx context.Context, path, origin string, sign SignFunc) (SnapshotInfo, error) {
	db, err := openFile(path)
	if err != nil {
		return SnapshotInfo{}, err
	}
	var info SnapshotInfo
	var signed int64
	start := time.Now()
	if err = checkLog(ctx, db); err == nil {
		signed, err = signOwnOps(ctx, db, origin, sign)
	}
	took := time.Since(start)
	if err == nil {
		info, err = describeDB(ctx, db)
		info.Signed, info.SignTook = signed, took
	}
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close snapshot: %w", cerr)
	}
	if err != nil {
		return SnapshotInfo{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return SnapshotInfo{}, fmt.Errorf("snapshot: %w", err)
	}
	info.Bytes = fi.Size()
	return info, nil
}

// checkLog refuses a database that lacks lsnode's tables.
func checkLog(ctx context.Context, db *sql.DB) error {
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'artifacts', 'lsnode_quarantine')`).Scan(&tables); err != nil {
		return fmt.Errorf("read database: %w", err)
	}
	if tables != 3 {
		return errors.New("the database is not an lsnode log (start lsnode on it once to migrate it)")
	}
	return nil
}

func describeDB(ctx context.Context, db *sql.DB) (SnapshotInfo, error) {
	var info SnapshotInfo
	if err := checkLog(ctx, db); err != nil {
		return info, err
	}
	if err := db.QueryRowContext(ctx, `SELECT (SELECT coalesce(max(rowid), 0) FROM events), (SELECT count(*) FROM artifacts)`).Scan(&info.Events, &info.Artifacts); err != nil {
		return info, fmt.Errorf("read snapshot: %w", err)
	}
	vv, err := queryVersionVector(ctx, db)
	if err != nil {
		return info, err
	}
	info.VersionVector = vv
	return info, nil
}

// openFile opens a database file that no store has open, on one
// connection.
func openFile(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", fmt.Sprintf("file:%s?_pragma=busy_timeout(10000)", path))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// RemoveSnapshot removes a snapshot file and any WAL or shared-memory
// file beside it.
func RemoveSnapshot(path string) error {
	return removeDBFiles(path)
}

func removeDBFiles(path string) error {
	var errs []error
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeStaleSnapshots removes the snapshot files a process that died
// while making one left in dir.
func removeStaleSnapshots(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, snapshotPrefix+"*"))
	for _, n := range names {
		_ = os.Remove(n)
	}
}
