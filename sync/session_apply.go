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
type applyQueue struct {
	jobs chan *QueuedBatch
	done chan applyOutcome
}

func newApplyQueue(size int) *applyQueue {
	// done holds an outcome for every job that can be outstanding (the
	// queue's plus the one being stored), so the applier never waits on
	// the loop.
	return &applyQueue{jobs: make(chan *QueuedBatch, size), done: make(chan applyOutcome, size+1)}
}

// full reports whether the loop must stop taking frames: the next batch
// would not fit.
func (q *applyQueue) full() bool { return len(q.jobs) == cap(q.jobs) }

// put queues jobs; the caller made sure they fit (full).
func (q *applyQueue) put(jobs []*QueuedBatch) {
	for _, j := range jobs {
		q.jobs <- j
	}
}

// run stores the queued batches until ctx ends. A batch still queued
// then is dropped unstored: it was never acknowledged, and a later pull
// brings its ops again.
func (q *applyQueue) run(ctx context.Context, log Log) {
	for {
		select {
		case job := <-q.jobs:
			res, err := log.ApplyBatch(ctx, job.batch)
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
