package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lsnode/lsnode/internal/backupfile"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/integrity"
	"github.com/lsnode/lsnode/sync/opsig"
)

// Backups (docs/operations.md, "Backups"): a consistent snapshot of the
// log (store.Snapshot), written in the format of internal/backupfile with
// the node's identity, and the signing key unless left out. The snapshot
// carries a stored signature for every op of the node's own origin
// (store.SignFunc), so a node restored or seeded from it relays them
// signed although it has no key of that origin.

// BackupFile is one backup ready to be written: WriteTo streams it
// (Size bytes), Close removes its snapshot.
type BackupFile struct {
	*backupfile.Writer
	snapshot string
}

// Close removes the snapshot the backup was made of.
func (b *BackupFile) Close() error { return store.RemoveSnapshot(b.snapshot) }

// newBackupFile describes the snapshot at path (what info says it holds)
// of the node whose data dir is dir, with the signing key when withKey.
func newBackupFile(path string, info store.SnapshotInfo, dir, replica string, withKey bool, version string, at time.Time) (*BackupFile, error) {
	sources := []backupfile.Source{{Name: backupfile.DatabaseName, Path: path}}
	if withKey {
		sources = append(sources, backupfile.Source{Name: backupfile.KeyName, Path: filepath.Join(dir, opsig.KeyFile)})
	}
	w, err := backupfile.New(backupfile.Manifest{
		CreatedAt: at.UTC().Format(time.RFC3339), LsnodeVersion: version, ReplicaID: replica,
		VersionVector: info.VersionVector, Events: info.Events, Artifacts: info.Artifacts,
	}, sources)
	if err != nil {
		_ = store.RemoveSnapshot(path)
		return nil, err
	}
	return &BackupFile{Writer: w, snapshot: path}, nil
}

// BackupDataDir makes the backup of a stopped node's data dir, whose
// lock the caller holds (internal/datadir).
func BackupDataDir(ctx context.Context, dir string, withKey bool, version string) (*BackupFile, error) {
	if _, err := os.Stat(filepath.Join(dir, store.ReplicaFile)); err != nil {
		return nil, fmt.Errorf("%s is not a node's data dir: %w", dir, err)
	}
	replica, err := store.LoadOrMintReplicaID(dir) // present: read, never minted
	if err != nil {
		return nil, err
	}
	sign, err := dirSigner(dir)
	if err != nil {
		return nil, err
	}
	at := time.Now()
	path, info, err := store.SnapshotDataDir(ctx, dir, dir, replica, sign)
	if err != nil {
		return nil, err
	}
	return newBackupFile(path, info, dir, replica, withKey, version, at)
}

// nodeBackups makes the backups of GET /lsnode/backup while the node
// serves.
type nodeBackups struct{ n *Node }

func (b nodeBackups) Backup(ctx context.Context, withKey bool) (httpapi.BackupFile, error) {
	at := b.n.wall.Now()
	path, info, err := b.n.store.Snapshot(ctx, b.n.integrity.SignCopy)
	if err != nil {
		return nil, err
	}
	b.n.log.Info("backup snapshot taken", "events", info.Events, "bytes", info.Bytes, "took", info.Took,
		"own_ops_signed", info.Signed, "signing_took", info.SignTook, "with_key", withKey)
	return newBackupFile(path, info, b.n.cfg.DataDir, b.n.store.ReplicaID(), withKey, b.n.cfg.Version, at)
}

// dirSigner signs the own ops of a stopped node's snapshot under its
// node.key; a dir without one (its node never signed) gets none.
func dirSigner(dir string) (store.SignFunc, error) {
	path := filepath.Join(dir, opsig.KeyFile)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	key, _, err := opsig.LoadOrMintKey(path) // present: read, never minted
	if err != nil {
		return nil, err
	}
	return func(ops []store.Op, digests map[string]string) { integrity.SignCopy(key, ops, digests) }, nil
}
