package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// The derived tables (lsnode_closures, lsnode_idempotency, lsnode_owed)
// are functions of the op set alone: indexEvent and indexOwed may see ops
// in any order and any number of times and leave the same rows. That is
// what makes owed sets and duplicate resolution identical on every
// converged replica.

// metaParts is what the derived tables need of an event's metadata.
type metaParts struct {
	ackOf string // the client's ack_of, when it is a string
	ext   extension
}

// partsOf parses stored metadata; unparsable metadata reads as {}.
func partsOf(raw json.RawMessage) metaParts {
	client, ext, err := splitMetadata(raw)
	if err != nil {
		return metaParts{}
	}
	return partsFrom(client, ext)
}

func partsFrom(client map[string]any, ext extension) metaParts {
	ackOf, _ := client["ack_of"].(string)
	return metaParts{ackOf: ackOf, ext: ext}
}

// indexEvent maintains lsnode_closures, lsnode_progress and
// lsnode_idempotency for one stored event, whose metadata parts the
// caller already holds. Its owed row is derived afterwards, with the rest
// of the transaction's events, by indexOwed; its search row and its
// writer's stamp before the commit (txviews.go).
func indexEvent(ctx context.Context, tx querier, e Event, parts metaParts) error {
	switch {
	case rules.IsTerminal(e.Status):
		if err := recordClosure(ctx, tx, e, parts.ackOf, parts.ext); err != nil {
			return err
		}
	case isProgress(e.Status):
		if err := recordProgress(ctx, tx, e, parts.ackOf, parts.ext); err != nil {
			return err
		}
	}
	if parts.ext.Idem != "" {
		return recordIdempotency(ctx, tx, "event", e.FromAgent, parts.ext.Idem, e.ID, rankOf(e.HLC, e.OriginReplica, e.ID))
	}
	return nil
}

// indexArtifact records an artifact's idempotency key, if any.
func indexArtifact(ctx context.Context, tx querier, a Artifact) error {
	_, ext, err := splitMetadata(a.Metadata)
	if err != nil || ext.Idem == "" {
		return nil
	}
	return recordIdempotency(ctx, tx, "artifact", a.CreatedBy, ext.Idem, a.ID, rankOf(a.CreatedAt, a.OriginReplica, a.ID))
}

// rankOf orders concurrent writes under one idempotency key: the lowest
// (hlc, origin_replica) is canonical everywhere.
func rankOf(stamp, origin, id string) string { return stamp + " " + origin + " " + id }

// causalJSON is a reply's causal context as the derived tables keep it:
// its JSON text, or NULL for a reply without one.
func causalJSON(ext extension) (any, error) {
	if ext.Ctx == nil {
		return nil, nil
	}
	b, err := json.Marshal(ext.Ctx)
	if err != nil {
		return nil, fmt.Errorf("encode causal context: %w", err)
	}
	return string(b), nil
}

func recordClosure(ctx context.Context, tx querier, r Event, ackOf string, ext extension) error {
	ctxJSON, err := causalJSON(ext)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO lsnode_closures (event_id, agent, ack_of, correlation_id, hlc, ctx_json)
VALUES (?, ?, ?, ?, ?, ?)`, r.ID, r.FromAgent, nullable(ackOf), nullable(r.CorrelationID), r.HLC, ctxJSON); err != nil {
		return fmt.Errorf("record closure %s: %w", r.ID, err)
	}
	if ackOf != "" {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lsnode_owed WHERE agent = ?1 AND (hlc, origin_replica, origin_seq) =
(SELECT hlc, origin_replica, origin_seq FROM events WHERE id = ?2)`, r.FromAgent, ackOf); err != nil {
			return fmt.Errorf("close acked event: %w", err)
		}
	}
	if r.CorrelationID == "" {
		return nil
	}
	after := `? > hlc`
	arg := any(r.HLC)
	if ctxJSON != nil {
		after = `coalesce(json_extract(?, '$."' || origin_replica || '"'), 0) >= origin_seq`
		arg = ctxJSON
	}
	// Owed rows carry their event's thread, hlc and origin slot, so closing
	// a thread visits only what the agent still owes in it
	// (lsnode_owed_thread_idx), however long the thread.
	_, err = tx.ExecContext(ctx, `DELETE FROM lsnode_owed INDEXED BY lsnode_owed_thread_idx WHERE agent = ? AND correlation_id = ? AND `+after,
		r.FromAgent, r.CorrelationID, arg)
	if err != nil {
		return fmt.Errorf("close thread %s: %w", r.CorrelationID, err)
	}
	return nil
}

// owedCondition holds for an event e that its addressee owes: e is
// addressed to another single agent, is not the losing duplicate of an
// idempotency key (the %s: a condition left out when none of the events
// considered carries a key, since only a keyed event can lose) and has no
// terminal reply from its addressee that came after it (docs/architecture.md#owed-ness): no
// closure acking it, and no closure in its thread whose causal context
// covers its origin slot (or, for a closure without context, whose hlc is
// later). Every closure and idempotency key held is considered, so the
// condition gives the rows that inserting each event and applying each
// later closure one by one would leave.
const owedCondition = `e.to_agent IS NOT NULL AND e.to_agent NOT IN ('', '*') AND e.to_agent != e.from_agent %s
AND NOT EXISTS (SELECT 1 FROM lsnode_closures c WHERE c.agent = e.to_agent AND c.ack_of = e.id)
AND NOT (e.correlation_id IS NOT NULL AND EXISTS (SELECT 1 FROM lsnode_closures r WHERE r.agent = e.to_agent AND r.correlation_id = e.correlation_id AND
 ` + replyCameAfter + `))`

// replyCameAfter holds for a reply r (a row of lsnode_closures or
// lsnode_progress) in the thread of an event e when the reply came after
// e (docs/architecture.md#owed-ness): its causal context covers e's origin slot, or, for a
// reply without context, its hlc is later. A reply that names e (ack_of)
// came after it without this test.
const replyCameAfter = `CASE WHEN r.ctx_json IS NULL THEN r.hlc > e.hlc
      ELSE coalesce(json_extract(r.ctx_json, '$."' || e.origin_replica || '"'), 0) >= e.origin_seq END`

// notLosingDuplicate is owedCondition's idempotency part.
const notLosingDuplicate = `
AND NOT EXISTS (SELECT 1 FROM lsnode_idempotency i WHERE i.item_id = e.id AND i.kind = 'event' AND i.canonical != i.item_id)`

// indexOwedSQL records as owed, by its addressee, every event with a
// rowid in (?1, ?2] that meets owedCondition. It runs after the closures
// and idempotency keys of those events are recorded, over every event
// stored since the owed rows were last written (owedlag.go): one
// statement, not a query and an insert per event. The rows go in in the
// table's key order: a mesh's events name their addressees in no order,
// and inserting each agent's rows together keeps the b-tree cursor on
// pages it has just written. Applying 100k events to 200 agents, that cut
// this statement's CPU by a fifth to a third.
const indexOwedSQL = `INSERT OR IGNORE INTO lsnode_owed (event_id, agent, stream, hlc, origin_replica, origin_seq, correlation_id, from_agent)
SELECT e.id, e.to_agent, e.stream, e.hlc, e.origin_replica, e.origin_seq, e.correlation_id, e.from_agent FROM events e
WHERE e.rowid > ?1 AND e.rowid <= ?2 AND ` + owedCondition + `
ORDER BY e.to_agent, e.hlc`

var (
	indexOwedKeyedSQL   = fmt.Sprintf(indexOwedSQL, notLosingDuplicate)
	indexOwedUnkeyedSQL = fmt.Sprintf(indexOwedSQL, "")
	// owedTailCondition is owedCondition for the events past the owed
	// mark, which Owed reads: any of them may carry a key.
	owedTailCondition = fmt.Sprintf(owedCondition, notLosingDuplicate)
)

// indexOwed derives the owed rows of the events with rowids in (after,
// upTo]; see indexOwedSQL. keyed is false only when none of those events
// carries an idempotency key.
func indexOwed(ctx context.Context, tx querier, after, upTo int64, keyed bool) error {
	if upTo <= after {
		return nil
	}
	query := indexOwedUnkeyedSQL
	if keyed {
		query = indexOwedKeyedSQL
	}
	if _, err := tx.ExecContext(ctx, query, after, upTo); err != nil {
		return fmt.Errorf("record owed events: %w", err)
	}
	return nil
}

// recordIdempotency adds one write under (kind, agent, key) and re-elects
// the canonical one; events that lose are no longer owed by anyone.
func recordIdempotency(ctx context.Context, tx querier, kind, agent, key, id, rank string) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO lsnode_idempotency (kind, from_agent, key, item_id, rank, canonical)
VALUES (?, ?, ?, ?, ?, ?)`, kind, agent, key, id, rank, id); err != nil {
		return fmt.Errorf("record idempotency key: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE lsnode_idempotency SET canonical = (
SELECT item_id FROM lsnode_idempotency WHERE kind = ?1 AND from_agent = ?2 AND key = ?3 ORDER BY rank LIMIT 1)
WHERE kind = ?1 AND from_agent = ?2 AND key = ?3`, kind, agent, key); err != nil {
		return fmt.Errorf("elect canonical write: %w", err)
	}
	if kind != "event" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM lsnode_owed WHERE (agent, hlc, origin_replica, origin_seq) IN (
SELECT e.to_agent, e.hlc, e.origin_replica, e.origin_seq FROM lsnode_idempotency i JOIN events e ON e.id = i.item_id
WHERE i.kind = 'event' AND i.from_agent = ? AND i.key = ? AND i.canonical != i.item_id)`, agent, key)
	if err != nil {
		return fmt.Errorf("drop duplicate owed: %w", err)
	}
	return nil
}

// canonicalFor returns the canonical item id under (kind, agent, key).
func canonicalFor(ctx context.Context, q querier, kind, agent, key string) (string, bool, error) {
	var id string
	err := q.QueryRowContext(ctx, `SELECT canonical FROM lsnode_idempotency WHERE kind = ? AND from_agent = ? AND key = ? LIMIT 1`,
		kind, agent, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("look up idempotency key: %w", err)
	}
	return id, true, nil
}

func (s *Store) idempotentEvent(w *writeTx, agent, key string) (Event, bool, error) {
	id, ok, err := canonicalFor(w.ctx, w.tx, "event", agent, key)
	if err != nil || !ok {
		return Event{}, false, err
	}
	evs, err := queryEvents(w.ctx, w.tx, `SELECT `+eventColumns+` FROM events WHERE id = ?`, id)
	if err != nil || len(evs) == 0 {
		return Event{}, false, err
	}
	return evs[0], true, nil
}

func (s *Store) idempotentArtifact(w *writeTx, agent, key string) (Artifact, bool, error) {
	id, ok, err := canonicalFor(w.ctx, w.tx, "artifact", agent, key)
	if err != nil || !ok {
		return Artifact{}, false, err
	}
	a, err := getArtifact(w.ctx, w.tx, id)
	return a, err == nil, err
}

// threadContext is the causal context recorded with an event that has a
// status: the writer's version vector restricted to the origins that have
// events in the correlation thread (docs/architecture.md#owed-ness).
func threadContext(w *writeTx, corr string) (map[string]int64, error) {
	out := map[string]int64{}
	if corr == "" {
		return out, nil
	}
	rows, err := w.tx.QueryContext(w.ctx, `SELECT DISTINCT origin_replica FROM events WHERE correlation_id = ?`, corr)
	if err != nil {
		return nil, fmt.Errorf("read thread origins: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var origin string
		if err := rows.Scan(&origin); err != nil {
			return nil, fmt.Errorf("read thread origins: %w", err)
		}
		out[origin] = w.top(origin)
	}
	return out, rows.Err()
}

// indexNewEvents indexes events and artifacts stored since the last
// indexing, e.g. by a Python hub that wrote to this file, and gives a file
// of an earlier version an owed mark. Indexing is idempotent, so a crash
// between a commit and the watermark update only costs a re-index.
func indexNewEvents(ctx context.Context, tx querier) error {
	from, err := watermark(ctx, tx, "indexed_event_rowid")
	if err != nil {
		return err
	}
	evs, err := queryEvents(ctx, tx, `SELECT `+eventColumns+` FROM events WHERE rowid > ? ORDER BY rowid`, from)
	if err != nil {
		return err
	}
	for _, e := range evs {
		if err := indexEvent(ctx, tx, e, partsOf(e.Metadata)); err != nil {
			return err
		}
	}
	if err := adoptOwedMark(ctx, tx, from); err != nil {
		return err
	}
	artFrom, err := watermark(ctx, tx, "indexed_artifact_rowid")
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, created_by, created_at, coalesce(origin_replica, ''), metadata_json FROM artifacts WHERE rowid > ? ORDER BY rowid`, artFrom)
	if err != nil {
		return fmt.Errorf("scan artifacts: %w", err)
	}
	var arts []Artifact
	for rows.Next() {
		var a Artifact
		var meta string
		if err := rows.Scan(&a.ID, &a.CreatedBy, &a.CreatedAt, &a.OriginReplica, &meta); err != nil {
			rows.Close()
			return fmt.Errorf("scan artifact: %w", err)
		}
		a.Metadata = []byte(meta)
		arts = append(arts, a)
	}
	rows.Close()
	for _, a := range arts {
		if err := indexArtifact(ctx, tx, a); err != nil {
			return err
		}
	}
	return saveWatermarks(ctx, tx)
}
