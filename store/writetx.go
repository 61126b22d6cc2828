package store

import (
	"context"
	"fmt"
)

// writeTx is what a write function sees: the batch transaction, the
// version vector as of the writes before it in the batch, and the ops it
// commits (published to subscribers after the commit).
type writeTx struct {
	ctx       context.Context
	tx        querier // the writer's connection, inside BEGIN IMMEDIATE
	s         *Store
	touched   map[string]int64 // version vector entries changed in this batch
	undo      map[string]int64 // previous values of entries changed by the current request (-1: absent)
	ops       []Op
	lastRowid int64 // the largest rowid of the events stored; 0 when none
	feedTop   int64 // the seq of the last artifact feed entry added; 0 when none
	keyed     bool  // an event stored carries an idempotency key
	stored    int   // events and artifacts stored
	// The events stored that may be owed, one per event (owedlag.go,
	// pendingasks.go).
	mayOwe []mayOwe
	// quarantined are the items quarantined, reported once committed.
	quarantined []quarantined
}

// requestMark is what a writeTx held before the current request, so that
// a failed request's accounting is forgotten with its statements: the
// rowids of events a savepoint undid are taken again by later events.
type requestMark struct {
	ops, mayOwe, stored, quarantined int
	lastRowid, feedTop               int64
	keyed                            bool
}

// storeArtifact inserts an artifact, indexes it and adds it to the
// artifact feed.
func (w *writeTx) storeArtifact(a Artifact) error {
	if err := insertArtifact(w.ctx, w.tx, a); err != nil {
		return err
	}
	w.stored++
	return w.feedArtifact(a.ID)
}

// storeEvent inserts a local event, sets its local seq and records its
// closure and idempotency rows; parts is its parsed metadata.
func (w *writeTx) storeEvent(e *Event, parts metaParts) error {
	stored, err := insertEvent(w.ctx, w.tx, e, abortOnHeldID)
	if err == nil && !stored {
		err = fmt.Errorf("insert event %s: not stored", e.ID)
	}
	if err != nil {
		return err
	}
	return w.indexStored(e, parts)
}

// storeRemoteEvent is storeEvent for a remote event: one whose id is held
// already is not stored (stored false), and the caller refuses it. The
// primary key finds that out, so the common case costs no extra lookup.
func (w *writeTx) storeRemoteEvent(e *Event, parts metaParts) (stored bool, err error) {
	if stored, err = insertEvent(w.ctx, w.tx, e, skipHeldID); err != nil || !stored {
		return false, err
	}
	return true, w.indexStored(e, parts)
}

func (w *writeTx) indexStored(e *Event, parts metaParts) error {
	w.stored++
	w.lastRowid = max(w.lastRowid, e.Seq)
	w.keyed = w.keyed || parts.ext.Idem != ""
	if mayBeOwed(e) {
		w.mayOwe = append(w.mayOwe, mayOwe{to: e.ToAgent, from: e.FromAgent, rowid: e.Seq})
	}
	return indexEvent(w.ctx, w.tx, *e, parts)
}

// top is the version vector entry for origin as of this point in the batch.
func (w *writeTx) top(origin string) int64 {
	if v, ok := w.touched[origin]; ok {
		return v
	}
	return w.s.mu.vv[origin] // only the writer goroutine mutates vv
}

// advance records that op now ends its origin's prefix.
func (w *writeTx) advance(op Op) {
	w.advanceSlot(op.Event.OriginReplica, op.Event.OriginSeq)
	w.ops = append(w.ops, op)
}

// advanceSlot moves origin's prefix to seq.
func (w *writeTx) advanceSlot(origin string, seq int64) {
	if _, saved := w.undo[origin]; !saved {
		prev, ok := w.touched[origin]
		if !ok {
			prev = -1
		}
		w.undo[origin] = prev
	}
	w.touched[origin] = seq
}

// rollbackRequest forgets the in-memory effects of the current request,
// which began at m.
func (w *writeTx) rollbackRequest(m requestMark) {
	for origin, prev := range w.undo {
		if prev < 0 {
			delete(w.touched, origin)
		} else {
			w.touched[origin] = prev
		}
	}
	w.ops = w.ops[:m.ops]
	w.mayOwe = w.mayOwe[:m.mayOwe]
	w.quarantined = w.quarantined[:m.quarantined]
	w.stored, w.lastRowid, w.feedTop, w.keyed = m.stored, m.lastRowid, m.feedTop, m.keyed
}

// run runs req's function; a failed request's in-memory effects (version
// vector entries, ops, what it stored) are forgotten, its statements are
// the caller's to undo.
func (w *writeTx) run(req *writeReq) error {
	w.undo = map[string]int64{}
	mark := requestMark{ops: len(w.ops), mayOwe: len(w.mayOwe), quarantined: len(w.quarantined),
		stored: w.stored, lastRowid: w.lastRowid, feedTop: w.feedTop, keyed: w.keyed}
	err := req.fn(w)
	if err != nil {
		w.rollbackRequest(mark)
	}
	return err
}
