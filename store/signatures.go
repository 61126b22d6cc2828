package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Origin integrity: the signatures received with remote ops,
// kept so this node relays them, and the public key pinned for each
// origin. Signing and verifying live in package opsig and the replication
// layer; the store only keeps what they decided, in the same transaction
// as the ops.

// Quarantine reasons of ops refused by the origin-integrity check. These
// ops do not consume their origin slot, so the genuine op still applies
// when an honest peer brings it.
const (
	ReasonSignature = "signature" // the signature does not verify against the origin's pinned key
	ReasonUnsigned  = "unsigned"  // no signature where one is required
)

// Refusal is the verdict of the origin-integrity check on an op. An op
// with a Refusal that would extend its origin's prefix is quarantined
// with Reason and Detail without advancing the prefix; later ops of that
// origin wait (deferred) and are pulled again.
type Refusal struct {
	Reason string // ReasonSignature or ReasonUnsigned
	Detail string
}

const signatureDDL = `
CREATE TABLE IF NOT EXISTS lsnode_op_signatures (
    event_rowid INTEGER PRIMARY KEY,
    signature BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS lsnode_origin_keys (
    origin_replica TEXT PRIMARY KEY,
    public_key BLOB NOT NULL,
    learned_from TEXT NOT NULL,
    pinned_at TEXT NOT NULL
) WITHOUT ROWID;
`

// createSignatureTables adds the origin-integrity tables (additive; the
// Python hub ignores them).
func createSignatureTables(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, signatureDDL); err != nil {
		return fmt.Errorf("create signature tables: %w", err)
	}
	return nil
}

// storeSignature keeps the verified signature of an op just inserted.
func storeSignature(w *writeTx, rowid int64, sig []byte) error {
	if len(sig) == 0 {
		return nil
	}
	if _, err := w.tx.ExecContext(w.ctx, `INSERT OR REPLACE INTO lsnode_op_signatures (event_rowid, signature) VALUES (?, ?)`, rowid, sig); err != nil {
		return fmt.Errorf("store signature of rowid %d: %w", rowid, err)
	}
	return nil
}

// refuseUnverified quarantines an op the integrity check refused, without
// consuming its slot: a forger must not be able to burn the genuine op's
// slot. The same op refused again for the same reason counts as a
// duplicate, so a peer offering the same forged op on every round adds no
// rows.
func (s *Store) refuseUnverified(w *writeTx, op Op, res *ApplyResult) error {
	return s.refuseOpOnce(w, res, op.Refusal.Reason, op.Event, refusalError(op.Refusal.Detail))
}

type refusalError string

func (e refusalError) Error() string { return string(e) }

// attachSignatures fills the Signature of ops (one origin's page from
// OpsAfter, in origin order) from the signatures held.
func (s *Store) attachSignatures(ctx context.Context, ops []Op) error {
	if len(ops) == 0 {
		return nil
	}
	first, last := ops[0].Event, ops[len(ops)-1].Event
	rows, err := s.reads.pool().QueryContext(ctx, `SELECT e.origin_seq, g.signature FROM events e
JOIN lsnode_op_signatures g ON g.event_rowid = e.rowid
WHERE e.origin_replica = ? AND e.origin_seq >= ? AND e.origin_seq <= ?`, first.OriginReplica, first.OriginSeq, last.OriginSeq)
	if err != nil {
		return fmt.Errorf("read signatures: %w", err)
	}
	defer rows.Close()
	at := make(map[int64]int, len(ops))
	for i, op := range ops {
		at[op.Event.OriginSeq] = i
	}
	for rows.Next() {
		var seq int64
		var sig []byte
		if err := rows.Scan(&seq, &sig); err != nil {
			return fmt.Errorf("read signatures: %w", err)
		}
		if i, ok := at[seq]; ok {
			ops[i].Signature = sig
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read signatures: %w", err)
	}
	return nil
}

// OriginKeys returns every pinned origin public key.
func (s *Store) OriginKeys(ctx context.Context) (map[string][]byte, error) {
	rows, err := s.readDB.QueryContext(ctx, `SELECT origin_replica, public_key FROM lsnode_origin_keys`)
	if err != nil {
		return nil, fmt.Errorf("read origin keys: %w", err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var origin string
		var key []byte
		if err := rows.Scan(&origin, &key); err != nil {
			return nil, fmt.Errorf("read origin keys: %w", err)
		}
		out[origin] = key
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read origin keys: %w", err)
	}
	return out, nil
}

// PinOriginKey pins key for origin unless a key is already pinned (trust
// on first use), recording the peer it was learned from, and returns the
// key pinned now: key itself, or the earlier one, which the caller
// compares to detect a conflict. A pin is never replaced.
func (s *Store) PinOriginKey(ctx context.Context, origin string, key []byte, learnedFrom string) ([]byte, error) {
	if !ValidReplicaID(origin) {
		return nil, invalidf("origin %q is not a replica id", origin)
	}
	if len(key) == 0 {
		return nil, invalidf("empty public key for origin %s", origin)
	}
	var pinned []byte
	err := s.write(ctx, func(w *writeTx) error {
		if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO lsnode_origin_keys (origin_replica, public_key, learned_from, pinned_at)
VALUES (?, ?, ?, ?) ON CONFLICT (origin_replica) DO NOTHING`, origin, key, learnedFrom, createdAt(s.wall.Now())); err != nil {
			return fmt.Errorf("pin key of %s: %w", origin, err)
		}
		return w.tx.QueryRowContext(w.ctx, `SELECT public_key FROM lsnode_origin_keys WHERE origin_replica = ?`, origin).Scan(&pinned)
	})
	if err != nil {
		return nil, err
	}
	return pinned, nil
}

// ArtifactDigests returns the sha256 of each held artifact among ids
// (absent ids are left out).
func (s *Store) ArtifactDigests(ctx context.Context, ids []string) (map[string]string, error) {
	return artifactDigests(ctx, s.readDB, ids)
}

func artifactDigests(ctx context.Context, q querier, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := q.QueryContext(ctx, `SELECT id, sha256 FROM artifacts WHERE id IN (?`+strings.Repeat(", ?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("read artifact digests: %w", err)
		}
		for rows.Next() {
			var id, sha string
			if err := rows.Scan(&id, &sha); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read artifact digests: %w", err)
			}
			out[id] = sha
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read artifact digests: %w", err)
		}
	}
	return out, nil
}
