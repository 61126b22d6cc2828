package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// NodeLocalTables are the tables of the log database that describe the
// node that holds the file rather than the log: a restore or a seed from
// a peer's snapshot empties them (PrepareRestored). Everything else in
// the file either is the op set (events, artifacts, event_artifacts and
// the signatures that travel with the ops), is derived from it (closures,
// idempotency ranks, owed rows, watermarks keyed by the file's own
// rowids, which a page copy keeps), or is trust the node takes from the
// snapshot's source along with its ops (lsnode_origin_keys, the keys
// that source pinned on first use).
//
// lsnode_quarantine is what this node refused and why, for its operator;
// a slot an invalid op used up there is found again by the restored
// node's own apply, since no replica serves that op, so the ops after it
// chain past the slot. lsnode_artifact_feed and its id number the
// artifacts in the order they reached this node, which peers' cursors
// point into: emptied, the feed is numbered again under a new id at the
// next open (artifact_feed.go), and peers read it from the start. The
// artifact cursors stay: they say how far into each peer's feed the
// file's own artifacts go, which holds for any copy. A table added to
// the schema that holds node-local state is listed here.
//
// The identity (replica.json, node.key), the tokens, the peer lists and
// the lock are files beside the database, never in a snapshot's database.
var NodeLocalTables = []string{"lsnode_quarantine", "lsnode_artifact_feed", "lsnode_artifact_feed_id"}

// PrepareRestored empties the node-local tables of a restored database
// file that no store has open, and returns what it then holds.
func PrepareRestored(ctx context.Context, path string) (SnapshotInfo, error) {
	db, err := openFile(path)
	if err != nil {
		return SnapshotInfo{}, err
	}
	defer db.Close()
	if err := checkLog(ctx, db); err != nil {
		return SnapshotInfo{}, err
	}
	for _, t := range NodeLocalTables {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, t).Scan(&n); err != nil {
			return SnapshotInfo{}, fmt.Errorf("inspect %s: %w", t, err)
		}
		if n == 0 {
			continue // a file from before the table: the next open creates it
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM `+t); err != nil {
			return SnapshotInfo{}, fmt.Errorf("clear %s: %w", t, err)
		}
	}
	info, err := describeDB(ctx, db)
	if err != nil {
		return SnapshotInfo{}, err
	}
	if err := db.Close(); err != nil {
		return SnapshotInfo{}, fmt.Errorf("close %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return SnapshotInfo{}, err
	}
	info.Bytes = fi.Size()
	return info, nil
}

// WriteReplicaID writes dir/replica.json naming id, as the Python hub
// writes it, for a restore that keeps a backup's identity. An existing
// file is refused.
func WriteReplicaID(dir, id string) error {
	if !ValidReplicaID(id) {
		return fmt.Errorf("invalid replica id %q", id)
	}
	body, err := json.MarshalIndent(replicaFile{ReplicaID: id, MintedAtNote: "RFC 004 step 0"}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode replica id: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ReplicaFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write replica id: %w", err)
	}
	if _, err := f.Write(append(body, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write replica id: %w", err)
	}
	return f.Close()
}
