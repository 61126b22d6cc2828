package store

import (
	"context"
	"fmt"
)

// lsnode_progress holds every reply that reports progress on an ask
// without closing it: status claimed ("I am working on it") or ready
// ("the work exists"), the two non-terminal replies of RFC 003 §3.3
// (docs/architecture.md#rfcs). Like
// lsnode_closures it is a function of the op set (a row per such event,
// written with it, INSERT OR IGNORE), so the claims and statuses read
// from it (claims.go) are the same on every converged replica. A reply
// joins an ask as a terminal one does (ack_of, or the same correlation_id
// and came after it, replyCameAfter); correlation_id is '' for a reply
// without a thread, since a WITHOUT ROWID key cannot be NULL.

// The progress statuses.
const (
	statusClaimed = "claimed"
	statusReady   = "ready"
)

// isProgress reports whether a status reports progress on an ask.
func isProgress(status string) bool { return status == statusClaimed || status == statusReady }

// recordProgress adds the progress row of a stored event.
func recordProgress(ctx context.Context, tx querier, r Event, ackOf string, ext extension) error {
	ctxJSON, err := causalJSON(ext)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO lsnode_progress (agent, correlation_id, hlc, event_id, status, ack_of, origin_replica, ctx_json)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, r.FromAgent, r.CorrelationID, r.HLC, r.ID, r.Status, nullable(ackOf), r.OriginReplica, ctxJSON); err != nil {
		return fmt.Errorf("record progress %s: %w", r.ID, err)
	}
	return nil
}

// rebuildProgress derives the progress rows of the events indexed before
// lsnode_progress existed (those up to the indexing watermark; the ones
// after it are indexNewEvents' work).
func rebuildProgress(ctx context.Context, tx querier) error {
	upTo, err := watermark(ctx, tx, "indexed_event_rowid")
	if err != nil {
		return err
	}
	evs, err := queryEvents(ctx, tx, `SELECT `+eventColumns+` FROM events WHERE rowid <= ? AND status IN (?, ?) ORDER BY rowid`,
		upTo, statusClaimed, statusReady)
	if err != nil {
		return err
	}
	for _, e := range evs {
		p := partsOf(e.Metadata)
		if err := recordProgress(ctx, tx, e, p.ackOf, p.ext); err != nil {
			return err
		}
	}
	return nil
}
