package lssync

import (
	"context"
	"time"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// Applying behind the link. A session does not let its loop wait for the
// store: the loop checks and converts a received batch and hands it to
// the session's applier goroutine (sync/grpcpeer/session_apply.go), which
// runs the store's writes one after another, in the order the batches
// arrived (each validated beforehand on the loop's goroutine when the Log
// takes validated batches), and reports each result back to the loop
// (Stored). Meanwhile the loop takes the next frames, so batch k+1 is
// received, decoded, verified and converted while batch k commits, and a
// pull's next window is asked for when the current one has arrived rather
// than when it is stored (advancePull): the store's writer always has the
// next batch.
//
// The order of an origin's ops is kept by the single applier per session
// and, across sessions, by the store's prefix rule (PrevSeq), as before.
// What is queued is bounded: the session stops reading frames while its
// applier queue is full, and a pull runs at most one window ahead of the
// store (advancePull), so a session holds at most about
// 2*PullWindow*BatchBytes of received batches.

// QueuedBatch is a received batch, checked and converted, on its way to
// the store (Link.ApplyBehind).
type QueuedBatch struct {
	batch   store.Batch
	pullID  uint64 // 0 for a push
	wireOps int    // ops in the received batch (error texts)
	// feed: artifacts or a cursor of the peer's artifact feed
	// (artifact_pull.go); pullID is then the page's.
	feed bool
}

// Batch is what to hand to the Log's ApplyBatch.
func (j *QueuedBatch) Batch() store.Batch { return j.batch }

func (j *QueuedBatch) empty() bool {
	return len(j.batch.Ops) == 0 && len(j.batch.Artifacts) == 0 && j.batch.FeedCursor == nil
}

// Path is how the batch came: "push", or "pull" for a pull answer.
func (j *QueuedBatch) Path() string {
	if j.pullID == 0 {
		return "push"
	}
	return "pull"
}

// ApplyBehind makes the link hand its batches to its driver (TakeQueued)
// instead of applying them in Handle; the driver must store them in order
// (one by one with the Log's ApplyBatch, or several in one transaction as
// a session's applier does) and report each result with Stored. The
// driver also counts what the store took (the Link's Observer.Applied is
// then not called), as soon as the store took it. A session does so on
// its applier goroutine; the simulator with random delays.
func (l *Link) ApplyBehind() { l.applier = true }

// queue hands job to the caller and notes what it will add.
func (l *Link) queue(job *QueuedBatch) {
	l.jobs = append(l.jobs, job)
	l.applying++
	if l.queuedTop == nil {
		l.queuedTop = map[string]int64{}
	}
	for _, op := range job.batch.Ops {
		if op.Refusal == nil {
			raise(l.queuedTop, op.Event.OriginReplica, op.Event.OriginSeq)
		}
	}
	for _, art := range job.batch.Artifacts {
		l.art.queue(art)
	}
}

// TakeQueued returns the batches queued since the last call, in order
// (after Handle: at most one).
func (l *Link) TakeQueued() []*QueuedBatch {
	jobs := l.jobs
	l.jobs = nil
	return jobs
}

// Stored takes the store's answer to a batch from TakeQueued and returns
// the frames to send. A non-nil error (the store failed) ends the
// session, as it does for a batch applied in Handle.
func (l *Link) Stored(ctx context.Context, job *QueuedBatch, res store.ApplyResult, err error, now time.Time) ([]*pb.Frame, error) {
	l.applying--
	if l.applying == 0 {
		l.queuedTop = nil // stored, or failed and to be pulled again
	}
	for _, art := range job.batch.Artifacts {
		l.art.unqueue(art.ID)
	}
	var out []*pb.Frame
	if job.feed {
		out, err = l.artifactsStored(ctx, job, res, err, now)
	} else {
		out, err = l.applied(job, res, err, now)
	}
	if err != nil || !l.ready {
		return out, err
	}
	return append(out, l.maybeRound(now)...), nil
}

// heldOrQueued is the version vector raised by the ops queued for the
// store: what this end will hold once they are stored, and where its next
// pull starts.
func (l *Link) heldOrQueued() map[string]int64 {
	vv := l.log.VersionVector()
	raiseMap(vv, l.queuedTop)
	return vv
}

// received accounts a batch of the pull in flight (or of the window
// before it) as it arrives.
func (l *Link) received(b *pb.Batch, job *QueuedBatch, now time.Time) {
	p := l.pullOf(b.GetPullId())
	if p == nil {
		return
	}
	if !job.empty() {
		p.pending++
	}
	if p != l.pull {
		return
	}
	p.progress = now
	if !p.fresh {
		held := l.heldOrQueued()
		for _, op := range job.batch.Ops {
			if op.Refusal == nil && op.Event.OriginSeq > held[op.Event.OriginReplica] {
				p.fresh = true
				break
			}
		}
	}
	if b.GetLast() {
		p.last, p.more = true, b.GetMore()
	}
}

// pullOf returns the state of pull id: the one in flight or the window
// before it, still being stored; nil for a push or a pull given up.
func (l *Link) pullOf(id uint64) *pullState {
	switch {
	case id == 0:
		return nil
	case l.pull != nil && l.pull.id == id:
		return l.pull
	case l.prevPull != nil && l.prevPull.id == id:
		return l.prevPull
	}
	return nil
}
