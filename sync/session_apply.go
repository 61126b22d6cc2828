package lssync

import (
	"context"

	"github.com/lsnode/lsnode/store"
)

// applyOutcome is the store's answer to one queued batch.
type applyOutcome struct {
	job *QueuedBatch
	res store.ApplyResult
	err error
}

// applyQueue is a session's applier: the batches its Link queued
// (Link.TakeQueued), stored one after another by one goroutine, in order
// (apply_queue.go). The session loop is the only sender on jobs and reads
// done; it stops taking frames while jobs is full, so put never blocks.
//
// When the Log can take batches validated ahead (checkedApplier, as the
// store does), put validates each batch on the loop's goroutine, so the
// applier only writes: batch k+1 is validated while batch k commits, and
// the store's writer does not wait for the validation of each batch.
type applyQueue struct {
	log     Log
	checked checkedApplier // log, when it is one; else nil
	m       *metrics       // counts what the store took, as soon as it took it
	jobs    chan *QueuedBatch
	done    chan applyOutcome
}

// checkedApplier is a Log whose batches can be validated apart from their
// write: store.CheckBatch, then ApplyChecked.
type checkedApplier interface {
	ApplyChecked(ctx context.Context, c store.CheckedBatch) (store.ApplyResult, error)
}

func newApplyQueue(size int, log Log, m *metrics) *applyQueue {
	checked, _ := log.(checkedApplier)
	// done holds an outcome for every job that can be outstanding (the
	// queue's plus the one being stored), so the applier never waits on
	// the loop.
	return &applyQueue{log: log, checked: checked, m: m, jobs: make(chan *QueuedBatch, size), done: make(chan applyOutcome, size+1)}
}

// full reports whether the loop must stop taking frames: the next batch
// would not fit.
func (q *applyQueue) full() bool { return len(q.jobs) == cap(q.jobs) }

// put queues jobs; the caller made sure they fit (full).
func (q *applyQueue) put(jobs []*QueuedBatch) {
	for _, j := range jobs {
		if q.checked != nil {
			c := store.CheckBatch(j.batch)
			j.checked = &c
		}
		q.jobs <- j
	}
}

// run stores the queued batches until ctx ends. A batch still queued
// then is dropped unstored: it was never acknowledged, and a later pull
// brings its ops again.
func (q *applyQueue) run(ctx context.Context) {
	for {
		select {
		case job := <-q.jobs:
			res, err := q.store(ctx, job)
			if err == nil {
				// Counted here, not when the loop takes the outcome: a
				// session that ends now never takes it, and what the store
				// took must be counted all the same.
				q.m.applied(job.path(), res)
				job.counted = true
			}
			select {
			case q.done <- applyOutcome{job: job, res: res, err: err}:
			case <-ctx.Done():
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// store writes one batch, validated by put when it could be.
func (q *applyQueue) store(ctx context.Context, job *QueuedBatch) (store.ApplyResult, error) {
	if job.checked != nil {
		return q.checked.ApplyChecked(ctx, *job.checked)
	}
	return q.log.ApplyBatch(ctx, job.batch)
}
