package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Signing a snapshot's own ops (docs/operations.md, "Restoring a node").
// A node signs its own ops when it serves them and keeps no signature of
// its own; only received signatures are stored. A node restored or seeded
// from its copy holds those ops as a remote origin's and relays them
// as stored, so without a signature in the copy they would travel
// unsigned, and a node that pinned the origin's key or refuses unsigned
// origins would quarantine them. So a snapshot stores, in the copy only,
// the signature of every op of the node's own origin that has none: the
// same signature its sessions send (ed25519 is deterministic).

// SignFunc sets the Signature of each op it can sign. ops are one
// origin's, in origin order, as OpsAfter returns them; digests holds the
// sha256 of every artifact they name that the copy holds. An op left
// unsigned (an artifact the copy lacks) is served unsigned, as before.
type SignFunc func(ops []Op, digests map[string]string)

// signPage is the number of ops signed and stored per transaction.
const signPage = 2000

// signOwnOps stores in db (a snapshot copy no store has open) a signature
// for every op of origin that has none, and returns how many it stored.
func signOwnOps(ctx context.Context, db *sql.DB, origin string, sign SignFunc) (int64, error) {
	if origin == "" || sign == nil {
		return 0, nil
	}
	var signed int64
	for after := int64(0); ; {
		evs, err := queryEvents(ctx, db, `SELECT `+eventColumns+` FROM events e
WHERE origin_replica = ? AND origin_seq > ?
AND NOT EXISTS (SELECT 1 FROM lsnode_op_signatures g WHERE g.event_rowid = e.rowid)
ORDER BY origin_seq LIMIT ?`, origin, after, signPage)
		if err != nil {
			return signed, fmt.Errorf("read own ops to sign: %w", err)
		}
		if len(evs) == 0 {
			return signed, nil
		}
		after = evs[len(evs)-1].OriginSeq
		n, err := signInto(ctx, db, evs, sign)
		signed += n
		if err != nil {
			return signed, err
		}
	}
}

// signInto signs evs and stores their signatures in one transaction.
func signInto(ctx context.Context, db *sql.DB, evs []Event, sign SignFunc) (int64, error) {
	ops := make([]Op, len(evs))
	var ids []string
	for i, e := range evs {
		ops[i] = Op{Event: e}
		ids = append(ids, e.ArtifactIDs...)
	}
	digests, err := artifactDigests(ctx, db, ids)
	if err != nil {
		return 0, err
	}
	sign(ops, digests)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("store own signatures: %w", err)
	}
	defer tx.Rollback()
	var n int64
	for _, op := range ops {
		if len(op.Signature) == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO lsnode_op_signatures (event_rowid, signature) VALUES (?, ?)`, op.Event.Seq, op.Signature); err != nil {
			return 0, fmt.Errorf("store own signature of rowid %d: %w", op.Event.Seq, err)
		}
		n++
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("store own signatures: %w", err)
	}
	return n, nil
}
