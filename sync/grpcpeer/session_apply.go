package grpcpeer

import (
	"context"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
)

// applyJob is a batch its Link queued (Link.TakeQueued), on its way
// through the applier.
type applyJob struct {
	queued  *lssync.QueuedBatch // what to report back (Link.Stored); nil in tests
	batch   store.Batch
	path    string              // "push" or "pull", for the metrics
	checked *store.CheckedBatch // batch, validated by put
}

func newApplyJob(q *lssync.QueuedBatch) *applyJob {
	return &applyJob{queued: q, batch: q.Batch(), path: q.Path()}
}

// applyOutcome is the store's answer to one queued batch.
type applyOutcome struct {
	job *applyJob
	res store.ApplyResult
	err error
}

// coalesceOps bounds the ops the applier writes in one store transaction
// when several validated batches wait (a node catching up): four default
// batches. Each commit writes every page its transaction touched, so
// fewer, larger ones write fewer pages per op.
const coalesceOps = 2000

// applyQueue is a session's applier: the batches its Link queued
// (Link.TakeQueued), stored one after another by one goroutine, in order
// (Link.ApplyBehind). The session loop is the only sender on jobs and reads
// done; it stops taking frames while jobs is full, so put never blocks.
//
// When the Log can take batches validated ahead (checkedApplier, as the
// store does), put validates each batch on the loop's goroutine, so the
// applier only writes: batch k+1 is validated while batch k commits, and
// the store's writer does not wait for the validation of each batch. The
// applier then writes the validated batches that wait together, in one
// transaction (up to coalesceOps ops), and reports each one's outcome.
type applyQueue struct {
	log     lssync.Log
	checked checkedApplier // log, when it is one; else nil
	m       *metrics       // counts what the store took, as soon as it took it
	jobs    chan *applyJob
	done    chan applyOutcome
}

// checkedApplier is a Log whose batches can be validated apart from their
// write (store.CheckBatch) and written several in one transaction.
type checkedApplier interface {
	ApplyCheckedBatches(ctx context.Context, cs []store.CheckedBatch) ([]store.ApplyResult, error)
}

func newApplyQueue(size int, log lssync.Log, m *metrics) *applyQueue {
	checked, _ := log.(checkedApplier)
	// done holds an outcome for every job that can be outstanding (the
	// queue's plus those being stored, at most as many again), so the
	// applier never waits on the loop.
	return &applyQueue{log: log, checked: checked, m: m, jobs: make(chan *applyJob, size), done: make(chan applyOutcome, 2*size)}
}

// full reports whether the loop must stop taking frames: the next batch
// would not fit.
func (q *applyQueue) full() bool { return len(q.jobs) == cap(q.jobs) }

// put queues jobs; the caller made sure they fit (full).
func (q *applyQueue) put(jobs ...*applyJob) {
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
		var first *applyJob
		select {
		case first = <-q.jobs:
		case <-ctx.Done():
			return
		}
		outcomes := q.store(ctx, q.takeWaiting(first))
		for _, o := range outcomes {
			if o.err == nil {
				// Counted here, not when the loop takes the outcome: a
				// session that ends now never takes it, and what the store
				// took must be counted all the same.
				q.m.Applied(o.job.path, o.res)
			}
		}
		for _, o := range outcomes {
			select {
			case q.done <- o:
			case <-ctx.Done():
				return
			}
		}
	}
}

// takeWaiting returns first and, when batches are validated ahead, those
// queued behind it, until they hold coalesceOps ops or more.
func (q *applyQueue) takeWaiting(first *applyJob) []*applyJob {
	jobs := []*applyJob{first}
	if q.checked == nil {
		return jobs
	}
	for ops := len(first.batch.Ops); ops < coalesceOps; {
		select {
		case j := <-q.jobs:
			jobs = append(jobs, j)
			ops += len(j.batch.Ops)
		default:
			return jobs
		}
	}
	return jobs
}

// store writes jobs in order, in one transaction when they were validated
// by put, and returns their outcomes in the same order.
func (q *applyQueue) store(ctx context.Context, jobs []*applyJob) []applyOutcome {
	out := make([]applyOutcome, len(jobs))
	if q.checked == nil {
		res, err := q.log.ApplyBatch(ctx, jobs[0].batch)
		out[0] = applyOutcome{job: jobs[0], res: res, err: err}
		return out
	}
	cs := make([]store.CheckedBatch, len(jobs))
	for i, j := range jobs {
		cs[i] = *j.checked
	}
	res, err := q.checked.ApplyCheckedBatches(ctx, cs)
	for i, j := range jobs {
		out[i] = applyOutcome{job: j, err: err}
		if err == nil {
			out[i].res = res[i]
		}
	}
	return out
}
