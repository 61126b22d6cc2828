package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/lsnode/lsnode/hlc"
)

// Quarantine reasons, a bounded set (metric label values).
const (
	reasonInvalid          = "invalid"
	reasonConflict         = "conflict"
	reasonArtifactInvalid  = "artifact_invalid"
	reasonArtifactConflict = "artifact_conflict"
)

// ApplyBatch stores a batch of remote artifacts and ops in one
// transaction. It is idempotent and never fails because of one bad op:
// invalid and conflicting items are quarantined with their reason, ops that
// would leave a hole are deferred, and the rest are stored. An error means
// the storage itself failed and nothing was stored.
func (s *Store) ApplyBatch(ctx context.Context, b Batch) (ApplyResult, error) {
	return s.ApplyChecked(ctx, CheckBatch(b))
}

// CheckedBatch is a Batch whose ops CheckBatch has validated, ready for
// ApplyChecked.
type CheckedBatch struct {
	batch   Batch
	checked []checkedOp
}

// CheckBatch validates a batch's ops as ApplyBatch does before it writes.
// It needs no store (and uses every core for a big batch), so a caller
// that applies batch after batch can check the next one while the store
// commits the last.
func CheckBatch(b Batch) CheckedBatch {
	return CheckedBatch{batch: b, checked: checkOps(b.Ops)}
}

// Batch is the batch that was checked.
func (c CheckedBatch) Batch() Batch { return c.batch }

// ApplyChecked is ApplyBatch for a batch CheckBatch has validated.
func (s *Store) ApplyChecked(ctx context.Context, c CheckedBatch) (ApplyResult, error) {
	res, err := s.ApplyCheckedBatches(ctx, []CheckedBatch{c})
	if err != nil {
		return ApplyResult{}, err
	}
	return res[0], nil
}

// ApplyCheckedBatches applies validated batches one after another in one
// transaction and returns each one's result, as ApplyChecked would have
// one by one. A caller with a backlog (a node catching up) commits fewer,
// larger transactions this way. An error means the storage failed and
// none of the batches was stored.
func (s *Store) ApplyCheckedBatches(ctx context.Context, cs []CheckedBatch) ([]ApplyResult, error) {
	ops := 0
	for _, c := range cs {
		if len(c.checked) != len(c.batch.Ops) {
			return nil, errors.New("apply: the batch was not checked by CheckBatch")
		}
		if fc := c.batch.FeedCursor; fc != nil && (fc.Peer == "" || fc.FeedID == "" || fc.Seq < 0) {
			return nil, invalidf("apply: artifact feed cursor %+v names no peer, no feed or a negative seq", *fc)
		}
		ops += len(c.batch.Ops)
	}
	res := make([]ApplyResult, len(cs))
	err := s.write(ctx, func(w *writeTx) error {
		clear(res) // a retried transaction starts over
		w.ops = slices.Grow(w.ops, ops)
		for i, c := range cs {
			if err := s.applyChecked(w, c, &res[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		s.metrics.observeApply(r)
	}
	return res, nil
}

// applyChecked writes one validated batch in w: its artifacts, then its
// ops in order, then its feed cursor.
func (s *Store) applyChecked(w *writeTx, c CheckedBatch, res *ApplyResult) error {
	for _, a := range c.batch.Artifacts {
		if err := s.applyArtifact(w, a, res); err != nil {
			return err
		}
	}
	for i, op := range c.batch.Ops {
		if err := s.applyOp(w, op, c.checked[i], res); err != nil {
			return err
		}
	}
	if fc := c.batch.FeedCursor; fc != nil {
		return storeFeedCursor(w, *fc)
	}
	return nil
}

func (s *Store) applyArtifact(w *writeTx, in Artifact, res *ApplyResult) error {
	existing, err := getArtifact(w.ctx, w.tx, in.ID)
	switch {
	case err == nil:
		if !sameArtifact(existing, in) {
			return s.refuseArtifact(w, res, reasonArtifactConflict, in,
				fmt.Errorf("artifact %s is already held with different content", reprID(in.ID)))
		}
		return nil
	case !errors.Is(err, ErrNotFound):
		return err
	}
	clean, verr := validateRemoteArtifact(in)
	if verr != nil {
		return s.refuseArtifact(w, res, reasonArtifactInvalid, in, verr)
	}
	if err := w.storeArtifact(clean); err != nil {
		return err
	}
	res.Artifacts++
	return nil
}

// refuseArtifact quarantines a refused remote artifact once. The event
// that names it stays deferred, so a peer offers the artifact again on
// every round.
func (s *Store) refuseArtifact(w *writeTx, res *ApplyResult, reason string, in Artifact, why error) error {
	_, err := s.refuseOnce(w, res, reason, "", 0, in.ID, why, in)
	return err
}

// refuseOnce quarantines a refused item whose origin slot stays as it
// is, unless the same refusal of the same item is recorded already
// (seen): applying a batch twice changes nothing.
func (s *Store) refuseOnce(w *writeTx, res *ApplyResult, reason, origin string, seq int64, id string, why error, item any) (seen bool, err error) {
	payload, err := json.Marshal(item)
	if err != nil {
		return false, fmt.Errorf("encode refused item %s: %w", id, err)
	}
	var originArg, seqArg any // stored as quarantine stores them
	if origin != "" {
		originArg, seqArg = origin, seq
	}
	var n int
	if err := w.tx.QueryRowContext(w.ctx, `SELECT count(*) FROM lsnode_quarantine
WHERE advanced = 0 AND origin_replica IS ? AND origin_seq IS ? AND reason = ? AND item_id = ? AND detail = ? AND payload = ?`,
		originArg, seqArg, reason, id, why.Error(), string(payload)).Scan(&n); err != nil {
		return false, fmt.Errorf("look up quarantine: %w", err)
	}
	if n > 0 {
		return true, nil
	}
	return false, s.quarantine(w, res, reason, origin, seq, id, why, item, false)
}

// refuseOpOnce quarantines a refused op without consuming its slot; the
// same op refused again is a duplicate.
func (s *Store) refuseOpOnce(w *writeTx, res *ApplyResult, reason string, e Event, why error) error {
	seen, err := s.refuseOnce(w, res, reason, e.OriginReplica, e.OriginSeq, e.ID, why, e)
	if seen {
		res.Duplicates++
	}
	return err
}

// applyOp applies one op; c is its validation (checkOps).
func (s *Store) applyOp(w *writeTx, op Op, c checkedOp, res *ApplyResult) error {
	e := op.Event
	if e.OriginSeq <= 0 || !ValidReplicaID(e.OriginReplica) {
		return s.refuseSlotless(w, e, res)
	}
	top := w.top(e.OriginReplica)
	if e.OriginSeq > 0 && e.OriginSeq <= top {
		return s.applyHeld(w, e, res)
	}
	if op.PrevSeq != top {
		res.Deferred++ // applying it would leave a hole; it comes again in order
		return nil
	}
	if op.Refusal != nil { // origin integrity (signatures.go): the slot stays free
		return s.refuseUnverified(w, op, res)
	}
	clean, parts, verr := c.clean, c.parts, c.err
	if verr != nil {
		// The slot is consumed so the origin is not wedged: every replica
		// refuses the same op with the same rules.
		return s.quarantine(w, res, reasonInvalid, e.OriginReplica, e.OriginSeq, e.ID, verr, e, true)
	}
	if len(clean.ArtifactIDs) > 0 {
		// A held id is refused before waiting for artifacts: an op that
		// can never be stored must not be deferred forever.
		if taken, err := eventIDHeld(w, clean.ID); err != nil || taken {
			return s.refuseHeldID(w, e, res, err)
		}
	}
	for _, id := range clean.ArtifactIDs {
		ok, err := artifactExists(w.ctx, w.tx, id)
		if err != nil {
			return err
		}
		if !ok {
			res.Missing = append(res.Missing, id)
			res.Deferred++
			return nil
		}
	}
	if stored, err := w.storeRemoteEvent(&clean, parts); err != nil || !stored {
		return s.refuseHeldID(w, e, res, err)
	}
	if err := storeSignature(w, clean.Seq, op.Signature); err != nil { // signatures.go
		return err
	}
	w.advance(Op{Event: clean, PrevSeq: top, Signature: op.Signature})
	res.Applied++
	s.observeRemote(clean, res)
	return nil
}

// refuseSlotless quarantines an op whose origin or origin_seq cannot name
// a slot. The prefix does not move: consuming such a "slot" would put an
// invalid origin into the version vector (and into cursors) or move an
// origin's top backwards. The same op offered again is a duplicate.
func (s *Store) refuseSlotless(w *writeTx, e Event, res *ApplyResult) error {
	_, verr := validateRemoteEvent(e)
	if verr == nil { // unreachable: validation checks both fields
		verr = fmt.Errorf("remote event %s names no valid origin slot", reprID(e.ID))
	}
	return s.refuseOpOnce(w, res, reasonInvalid, e, verr)
}

// applyHeld handles an op at or below the held top: the same op is a
// duplicate; anything else is a conflict, recorded once and never stored.
func (s *Store) applyHeld(w *writeTx, e Event, res *ApplyResult) error {
	held, err := queryEvents(w.ctx, w.tx, `SELECT `+eventColumns+` FROM events WHERE origin_replica = ? AND origin_seq = ?`,
		e.OriginReplica, e.OriginSeq)
	if err != nil {
		return err
	}
	if len(held) == 1 {
		clean, verr := validateRemoteEvent(e)
		if verr == nil && sameEvent(held[0], clean) {
			res.Duplicates++
			return nil
		}
		return s.refuseOpOnce(w, res, reasonConflict, e,
			fmt.Errorf("origin slot %s/%d already holds event %s with different content", e.OriginReplica, e.OriginSeq, reprID(held[0].ID)))
	}
	if seen, err := quarantinedSlot(w, e.OriginReplica, e.OriginSeq); err != nil {
		return err
	} else if seen {
		res.Duplicates++ // the same refused op again
		return nil
	}
	return s.refuseOpOnce(w, res, reasonConflict, e,
		fmt.Errorf("origin slot %s/%d lies inside the held prefix but holds no event here", e.OriginReplica, e.OriginSeq))
}

// refuseHeldID quarantines an op whose event id is held at another origin
// slot, consuming its slot; err is the lookup's or the insert's error.
func (s *Store) refuseHeldID(w *writeTx, e Event, res *ApplyResult, err error) error {
	if err != nil {
		return err
	}
	if held, err := eventIDHeld(w, e.ID); err != nil {
		return err
	} else if !held { // the insert was skipped, yet no event holds the id
		return fmt.Errorf("insert event %s: not stored, though its id and origin slot are free", reprID(e.ID))
	}
	return s.quarantine(w, res, reasonConflict, e.OriginReplica, e.OriginSeq, e.ID,
		fmt.Errorf("event id %s is already held at another origin slot", reprID(e.ID)), e, true)
}

func eventIDHeld(w *writeTx, id string) (bool, error) {
	var n int
	if err := w.tx.QueryRowContext(w.ctx, `SELECT count(*) FROM events WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up event %s: %w", id, err)
	}
	return n > 0, nil
}

func quarantinedSlot(w *writeTx, origin string, seq int64) (bool, error) {
	var n int
	err := w.tx.QueryRowContext(w.ctx, `SELECT count(*) FROM lsnode_quarantine WHERE origin_replica = ? AND origin_seq = ? AND advanced = 1`,
		origin, seq).Scan(&n)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("look up quarantine: %w", err)
	}
	return n > 0, nil
}

// observeRemote feeds an applied op's stamp to the clock and records the
// apply delay and any skew beyond the bound.
func (s *Store) observeRemote(e Event, res *ApplyResult) {
	ts, err := hlc.Parse(e.HLC)
	if err != nil {
		return
	}
	obs := s.clock.Observe(ts)
	now := s.wall.Now()
	s.metrics.applyDelay.Observe(float64(now.UnixMilli()-ts.WallMS) / 1000)
	if obs.Beyond {
		if res.SkewedOrigins == nil {
			res.SkewedOrigins = map[string]int64{}
		}
		ms := obs.Offset.Milliseconds()
		if ms > res.SkewedOrigins[e.OriginReplica] {
			res.SkewedOrigins[e.OriginReplica] = ms
		}
	}
}

// quarantine records a refused item. advanced marks an op whose origin
// slot is consumed (the prefix moves past it).
func (s *Store) quarantine(w *writeTx, res *ApplyResult, reason, origin string, seq int64, id string, why error, item any, advanced bool) error {
	payload, err := json.Marshal(item)
	if err != nil {
		payload = []byte("null")
	}
	var originArg, seqArg any
	if origin != "" {
		originArg, seqArg = origin, seq
	}
	adv := 0
	if advanced {
		adv = 1
	}
	if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO lsnode_quarantine (received_at, origin_replica, origin_seq, item_id, reason, detail, payload, advanced)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, createdAt(s.wall.Now()), originArg, seqArg, id, reason, why.Error(), string(payload), adv); err != nil {
		return fmt.Errorf("quarantine %s: %w", id, err)
	}
	if advanced {
		w.advanceSlot(origin, seq)
	}
	res.Quarantined++
	w.quarantined = append(w.quarantined, quarantined{reason: reason, id: id, origin: origin, seq: seq, detail: why.Error()})
	return nil
}

// quarantined is one item quarantined by a batch. It is counted and
// logged once the batch commits, so that a batch run again (a savepoint
// rerun) or rolled back reports nothing twice or for nothing.
type quarantined struct {
	reason, id, origin, detail string
	seq                        int64
}

func (s *Store) reportQuarantined(w *writeTx) {
	for _, q := range w.quarantined {
		s.metrics.quarantined.WithLabelValues(q.reason).Inc()
		s.log.Warn("quarantined remote item", "reason", q.reason, "id", q.id, "origin", q.origin, "origin_seq", q.seq, "detail", q.detail)
	}
}
