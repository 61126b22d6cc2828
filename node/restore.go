package node

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/lsnode/lsnode/internal/backupfile"
	"github.com/lsnode/lsnode/internal/datadir"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/opsig"
)

// Restores (docs/operations.md, "Restoring a node"). A restored node
// takes a new replica id and a new signing key by default, and holds the
// backup's ops, its own old origin's included, as a remote origin's: a
// node that numbered new ops after an old backup's top under the old id
// would reuse slots its peers hold with other content. KeepIdentity
// restores the backup's id and key instead, and marks the dir so that
// the node takes no local write until it has pulled its own origin back
// from its peers (store.WriteRecoveryMarker, recovery.go).

// RestoreOptions say how to restore.
type RestoreOptions struct {
	// KeepIdentity restores the backup's replica id and signing key; the
	// backup must carry the key.
	KeepIdentity bool
	// Now stamps the recovery marker; zero means time.Now().
	Now time.Time
}

// RestoreReport says what a restore did.
type RestoreReport struct {
	Manifest backupfile.Manifest `json:"manifest"`
	// VersionVector and Events are the restored log's, once its
	// node-local tables are emptied.
	VersionVector  map[string]int64 `json:"version_vector"`
	Events         int64            `json:"events"`
	ReplicaID      string           `json:"replica_id"` // the identity the restored node takes
	KeyFingerprint string           `json:"key_fingerprint"`
	KeptIdentity   bool             `json:"kept_identity"`
}

// Restore reads a backup stream into dir, which the caller has locked
// (internal/datadir) and which must hold nothing but the lock. On error
// it leaves dir as it found it.
func Restore(ctx context.Context, r io.Reader, dir string, opt RestoreOptions) (rep RestoreReport, err error) {
	if err := checkEmptyDir(dir); err != nil {
		return rep, err
	}
	defer func() {
		if err != nil {
			clearDir(dir)
		}
	}()
	staging, err := os.MkdirTemp(dir, ".restore-")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(staging)
	m, err := backupfile.Extract(r, staging)
	if err != nil {
		return rep, err
	}
	rep.Manifest = m
	if !store.ValidReplicaID(m.ReplicaID) {
		return rep, fmt.Errorf("the backup names an invalid replica id %q", m.ReplicaID)
	}
	if opt.KeepIdentity && !m.HasKey() {
		return rep, errors.New("--keep-identity needs the node's signing key, and this backup does not carry it (made with --no-key, or a seed from a peer)")
	}
	db := filepath.Join(dir, store.DBFile)
	if err := os.Rename(filepath.Join(staging, backupfile.DatabaseName), db); err != nil {
		return rep, err
	}
	info, err := store.PrepareRestored(ctx, db)
	if err != nil {
		return rep, err
	}
	rep.VersionVector, rep.Events = info.VersionVector, info.Events
	keyPath := filepath.Join(dir, opsig.KeyFile)
	if opt.KeepIdentity {
		err = keepIdentity(dir, staging, m, info, opt.Now)
		rep.ReplicaID, rep.KeptIdentity = m.ReplicaID, true
	} else {
		rep.ReplicaID, err = store.LoadOrMintReplicaID(dir) // the dir has none: a new identity
	}
	if err != nil {
		return rep, err
	}
	key, _, err := opsig.LoadOrMintKey(keyPath)
	if err != nil {
		return rep, err
	}
	rep.KeyFingerprint = opsig.Fingerprint(key.Public().(ed25519.PublicKey))
	return rep, nil
}

// keepIdentity installs the backup's replica id and key and the marker
// that holds local writes back until the own origin is recovered.
func keepIdentity(dir, staging string, m backupfile.Manifest, info store.SnapshotInfo, now time.Time) error {
	if err := os.Rename(filepath.Join(staging, backupfile.KeyName), filepath.Join(dir, opsig.KeyFile)); err != nil {
		return err
	}
	if err := store.WriteReplicaID(dir, m.ReplicaID); err != nil {
		return err
	}
	if now.IsZero() {
		now = time.Now()
	}
	return store.WriteRecoveryMarker(dir, m.ReplicaID, info.VersionVector[m.ReplicaID], now.UTC().Format(time.RFC3339))
}

// checkEmptyDir refuses a dir that holds anything but its lock file.
func checkEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != datadir.LockFile {
			return fmt.Errorf("data dir %s is not empty (it holds %s): restore into a new or empty dir", dir, e.Name())
		}
	}
	return nil
}

// clearDir removes everything in dir but its lock file.
func clearDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != datadir.LockFile {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
