package store

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// writeReq is one caller's unit of work for the writer goroutine. fn runs
// inside the batch transaction and may run twice (execBatch): it must
// start from its inputs each time.
type writeReq struct {
	ctx  context.Context
	fn   func(w *writeTx) error
	done chan error
}

// write runs fn on the writer goroutine and waits for its commit. Once
// queued, a write is waited for even if ctx ends: its outcome must be
// known, because a committed write is an acknowledged one.
func (s *Store) write(ctx context.Context, fn func(w *writeTx) error) error {
	if s.cfg.ReadOnly {
		return ErrReadOnly
	}
	req := &writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	s.mu.Lock()
	closed := s.mu.closed
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	select {
	case s.writes <- req:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.stop:
		return ErrClosed
	}
	return s.await(req)
}

// await waits for the answer to a queued request. A caller that found the
// store open can still queue after Close has drained the queue and the
// writer has returned (its select may pick the send over the closed stop
// channel): that request never runs, and is refused.
func (s *Store) await(req *writeReq) error {
	select {
	case err := <-req.done:
		return err
	case <-s.done:
	}
	select {
	case err := <-req.done: // answered before the writer returned
		return err
	default:
		return ErrClosed
	}
}

// runWriter is the single writer goroutine: it takes every queued request,
// runs them in one transaction and commits once (group commit).
func (s *Store) runWriter() {
	defer close(s.done)
	for {
		var first *writeReq
		select {
		case first = <-s.writes:
		case <-s.stop:
			s.drainOnStop()
			s.saveFinalWatermarks()
			return
		}
		s.runBatch(first)
	}
}

// drainOnStop completes requests queued before Close.
func (s *Store) drainOnStop() {
	for {
		select {
		case req := <-s.writes:
			s.runBatch(req)
		default:
			return
		}
	}
}

// collect appends the requests queued now to batch, up to MaxBatch. With
// yield it first lets callers that were just woken by the last commit
// queue their next write: one yield grows the batch that shares a commit,
// and a commit costs as much as many inserts.
func (s *Store) collect(batch []*writeReq, yield bool) []*writeReq {
	for len(batch) < s.cfg.MaxBatch {
		select {
		case req := <-s.writes:
			batch = append(batch, req)
		default:
			if !yield {
				return batch
			}
			yield = false
			runtime.Gosched()
		}
	}
	return batch
}

func (s *Store) runBatch(first *writeReq) {
	start := s.wall.Now()
	batch, errs, w, err := s.execBatch(first)
	if err != nil {
		errs = append(errs, make([]error, len(batch)-len(errs))...)
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	} else {
		s.publish(w)
		s.reportQuarantined(w)
		s.ckpt.committed()
		s.owed.add(w)
		s.pending.add(w.lastRowid, w.mayOwe)
		s.metrics.owedLagging.Set(float64(s.owed.total))
	}
	s.metrics.batchSize.Observe(float64(len(batch)))
	s.metrics.commitSeconds.Observe(s.wall.Now().Sub(start).Seconds())
	for i, req := range batch {
		req.done <- errs[i]
	}
	if err == nil && s.owed.full() {
		// After the answers: no caller waits for these rows.
		if err := s.writeOwed(context.Background()); err != nil {
			s.log.Warn("write owed rows; the next commit tries again", "err", err)
		}
	}
}

// execBatch runs the batch in one transaction and commits once. Requests
// queued while it runs join the transaction before the commit (callers
// woken by the previous commit queue their next write while this batch
// runs), so the commit is shared by as many writes as are waiting. errs
// receives each request's own error; the returned error is the
// transaction's (begin or commit), which fails every request.
//
// Requests run without savepoints first: almost every failure is found by
// reads before the request writes anything, and a savepoint per request
// costs two statements and a copy of every page it touches. A request that
// fails after writing rolls the whole transaction back, and the batch runs
// again with a savepoint around each request, so one caller's failure
// still never fails another. A request whose failure cost the whole
// transaction is answered with its error and the others run again without
// it (txlost.go).
func (s *Store) execBatch(first *writeReq) (batch []*writeReq, errs []error, w *writeTx, err error) {
	batch = s.collect([]*writeReq{first}, true)
	var settled []error // the answers of batch[:len(settled)], which do not run again
	batch, errs, w, err = s.tryBatch(batch, settled, false)
	for lost := 0; ; lost++ {
		switch {
		case errors.Is(err, errDirtyFailure):
		case errors.Is(err, errTransactionLost) && lost < maxLostTransactions:
			batch, settled = settleLast(batch, errs, settled)
		default:
			return batch, errs, w, err
		}
		batch, errs, w, err = s.tryBatch(batch, settled, true)
	}
}

// errDirtyFailure ends a savepoint-free attempt whose failed request had
// written: the transaction is rolled back and the batch is run again.
var errDirtyFailure = errors.New("a request failed after writing")

// tryBatch runs batch but for its first len(settled) requests, which are
// answered already, the requests that queue meanwhile and, when the
// transaction is small, those that come while the writer lingers
// (linger.go) in one transaction, each request in a savepoint when
// savepoints is set. On an error the answers it returns may be fewer than
// the requests; the error is the answer of the rest.
func (s *Store) tryBatch(batch []*writeReq, settled []error, savepoints bool) ([]*writeReq, []error, *writeTx, error) {
	errs := append(make([]error, 0, len(batch)), settled...)
	ctx := context.Background()
	tx := s.writer
	if _, err := tx.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return batch, errs, nil, fmt.Errorf("begin write: %w", err)
	}
	w := &writeTx{ctx: ctx, tx: tx, s: s, touched: map[string]int64{}, ops: make([]Op, 0, len(batch))}
	lingered := savepoints // a rerun does not wait again
	for {
		var err error
		if batch, errs, err = s.runPending(w, batch, errs, savepoints); err != nil {
			return batch, errs, nil, err
		}
		if lingered || !s.lingerer.wanted(w.stored) {
			break
		}
		lingered = true
		batch = s.linger(batch)
	}
	if err := s.writeTxViews(w); err != nil {
		return batch, errs, nil, errors.Join(err, rollback(ctx, tx))
	}
	saved := s.unindexed+w.stored >= watermarkEvery
	if saved {
		if err := saveWatermarks(ctx, tx); err != nil {
			return batch, errs, nil, errors.Join(err, rollback(ctx, tx))
		}
	}
	if _, err := tx.ExecContext(ctx, "COMMIT"); err != nil {
		err = errors.Join(fmt.Errorf("commit: %w", err), rollback(ctx, tx))
		// The failed transaction may still be whole in the WAL; the seal
		// makes sure it stays failed (walseal.go).
		s.sealWAL(ctx)
		return batch, errs, nil, err
	}
	if saved {
		s.unindexed = 0
	} else {
		s.unindexed += w.stored
	}
	s.searched = max(s.searched, w.lastRowid)
	return batch, errs, w, nil
}

// runPending runs the requests of batch that have not run yet (errs holds
// the outcomes of those that have), then those that queued meanwhile,
// until none is left. A bare request that fails after writing rolls the
// transaction back and ends the attempt with errDirtyFailure.
func (s *Store) runPending(w *writeTx, batch []*writeReq, errs []error, savepoints bool) ([]*writeReq, []error, error) {
	for len(errs) < len(batch) {
		for _, req := range batch[len(errs):] {
			if err := req.ctx.Err(); err != nil {
				errs = append(errs, err)
				continue
			}
			if savepoints {
				err := s.execInSavepoint(w, req)
				errs = append(errs, err)
				if errors.Is(err, errTransactionLost) {
					return batch, errs, errors.Join(errTransactionLost, rollback(w.ctx, w.tx))
				}
				continue
			}
			dirty, err := s.execBare(w, req)
			if dirty {
				return batch, errs, errors.Join(errDirtyFailure, rollback(w.ctx, w.tx))
			}
			errs = append(errs, err)
			if err != nil && !w.inTransaction() {
				return batch, errs, errors.Join(errTransactionLost, rollback(w.ctx, w.tx))
			}
		}
		batch = s.collect(batch, false)
	}
	return batch, errs, nil
}

// execBare runs req without a savepoint. dirty reports a failure after
// the request executed a statement, which only a rollback can undo.
func (s *Store) execBare(w *writeTx, req *writeReq) (dirty bool, err error) {
	execs := s.writer.execs
	if err = w.run(req); err != nil {
		return s.writer.execs != execs, err
	}
	return false, nil
}

func (s *Store) execInSavepoint(w *writeTx, req *writeReq) error {
	if _, err := w.tx.ExecContext(w.ctx, "SAVEPOINT req"); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	err := w.run(req)
	if err != nil {
		if _, rbErr := w.tx.ExecContext(w.ctx, "ROLLBACK TO req"); rbErr != nil {
			// Without its savepoint the transaction is gone or unsafe.
			return errors.Join(err, fmt.Errorf("rollback savepoint: %w", rbErr), errTransactionLost)
		}
	}
	if _, relErr := w.tx.ExecContext(w.ctx, "RELEASE req"); relErr != nil {
		return errors.Join(err, fmt.Errorf("release savepoint: %w", relErr))
	}
	return err
}

// publish makes a committed batch visible: version vector, waiters,
// subscribers.
func (s *Store) publish(w *writeTx) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for origin, top := range w.touched {
		s.mu.vv[origin] = top
	}
	s.tail.commit(w.ops, s.mu.vv) // before waking waiters: a woken List sees the commit
	s.sizes.committed(w.ops, s.replica, s.wall.Now())
	for _, op := range w.ops {
		s.mu.writers.note(op.Event.FromAgent, op.Event.OriginReplica, stampMS(op.Event.HLC))
	}
	if len(w.ops) > 0 {
		s.wakeLocked(w.ops)
		s.fanOutLocked(w.ops)
	}
	s.metrics.origins.Set(float64(len(s.mu.vv)))
	s.feed.committed(w.feedTop)
}

// rollback ends a failed batch transaction; after a failed COMMIT SQLite
// may already have rolled back, which is not an error here.
func rollback(ctx context.Context, tx querier) error {
	if _, err := tx.ExecContext(ctx, "ROLLBACK"); err != nil && !strings.Contains(err.Error(), "no transaction is active") {
		return fmt.Errorf("rollback: %w", err)
	}
	return nil
}
