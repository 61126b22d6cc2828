package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lsnode/lsnode/hlc"
)

// Own-origin recovery (docs/operations.md, "Restoring under the same
// identity"). A node restored from a backup under the backup's replica
// id holds a prefix of its own origin that its peers may have outgrown:
// if it numbered new ops from its restored top, peers holding other ops
// in those slots would quarantine them as conflicts. So a restore that
// keeps the identity writes a marker file, and a store opened on a dir
// with the marker refuses every local write and offers its own origin to
// replication like any other (PullsOwnOrigin), until EndRecovery: the
// node ends it once every reachable peer's copy of its origin is held.

// RecoveryFile is the marker of a data dir whose own origin is being
// pulled back from peers.
const RecoveryFile = "own-origin-recovery.json"

// ErrRecovering is the kind of the refusal of a local write while the
// store recovers its own origin.
var ErrRecovering = errors.New("own origin recovering")

// recoveryMarker is the marker's content: the identity it was written
// for and the own-origin top of the restored backup.
type recoveryMarker struct {
	ReplicaID   string `json:"replica_id"`
	RestoredTop int64  `json:"restored_top"`
	RestoredAt  string `json:"restored_at"`
}

// WriteRecoveryMarker marks dir, just restored under replica id with its
// own origin held up to top, as recovering its own origin.
func WriteRecoveryMarker(dir, replica string, top int64, at string) error {
	body, err := json.MarshalIndent(recoveryMarker{ReplicaID: replica, RestoredTop: top, RestoredAt: at}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, RecoveryFile), append(body, '\n'), 0o600); err != nil {
		return fmt.Errorf("write recovery marker: %w", err)
	}
	return nil
}

// loadRecovery reads dir's marker: true when the store must recover its
// own origin. A marker for another replica id, or one that does not
// parse, is refused: the dir is not what the restore left.
func loadRecovery(dir, replica string) (bool, error) {
	path := filepath.Join(dir, RecoveryFile)
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	var m recoveryMarker
	if err := json.Unmarshal(raw, &m); err != nil {
		return false, fmt.Errorf("%s is corrupt (%v): restore again, or remove it only if no peer holds ops of this origin the backup lacks", path, err)
	}
	if m.ReplicaID != replica {
		return false, fmt.Errorf("%s is for replica %s, not this dir's %s", path, m.ReplicaID, replica)
	}
	return true, nil
}

// Recovering reports whether the store is pulling its own origin back
// and refuses local writes.
func (s *Store) Recovering() bool { return s.recovering.Load() }

// PullsOwnOrigin tells replication to pull this node's own origin from
// peers like any other origin: while the store recovers it.
func (s *Store) PullsOwnOrigin() bool { return s.recovering.Load() }

// localWritable refuses a local write while the own origin recovers.
func (s *Store) localWritable() error {
	if !s.recovering.Load() {
		return nil
	}
	return &ValidationError{Kind: ErrRecovering, Msg: "this node was restored from a backup under its own replica id " + s.replica +
		" and refuses writes until it has pulled that origin's newer ops back from its peers (lsnode status shows recovering; docs/operations.md)"}
}

// EndRecovery ends the recovery of the own origin: the clock is seeded
// with the newest stamp of the origin held now (pulled back from peers),
// so no new stamp is at or below one issued before the restore, then the
// marker goes and local writes are taken again. Their origin_seq follows
// the top held.
func (s *Store) EndRecovery(ctx context.Context) error {
	if !s.recovering.Load() {
		return nil
	}
	var own sql.NullString
	if err := s.readDB.QueryRowContext(ctx, `SELECT max(hlc) FROM events WHERE origin_replica = ?`, s.replica).Scan(&own); err != nil {
		return fmt.Errorf("read own newest stamp: %w", err)
	}
	if ts, err := hlc.Parse(own.String); own.Valid && err == nil {
		s.clock.SeedOwn(ts)
	}
	if err := os.Remove(filepath.Join(s.cfg.Dir, RecoveryFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove recovery marker: %w", err)
	}
	s.recovering.Store(false)
	s.log.Info("own origin recovered: local writes are taken again", "replica", s.replica, "top", s.VersionVector()[s.replica])
	return nil
}
