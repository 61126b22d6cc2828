package lssync

import (
	"context"
	"fmt"
	"time"

	"github.com/lsnode/lsnode/hlc"
	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// onBatch takes a received batch (a pull answer or a push): it checks the
// ops' integrity and converts them for the store, then applies them
// through the Log's idempotent ApplyBatch (artifacts first, then ops, in
// one transaction) — at once, or, when a session applies for the link
// (apply_queue.go), by handing the batch to the session's applier. Ops
// that would leave a hole are deferred by the Log; a deferral asks for a
// round so the missing range is pulled.
func (l *Link) onBatch(ctx context.Context, b *pb.Batch, now time.Time) ([]*pb.Frame, error) {
	for _, op := range b.GetOps() {
		raise(l.peerHas, op.GetOriginReplica(), op.GetOriginSeq())
	}
	job := &QueuedBatch{pullID: b.GetPullId(), wireOps: len(b.GetOps())}
	if len(b.GetOps()) > 0 || len(b.GetArtifacts()) > 0 {
		batch, heldBack, err := l.checkIntegrity(ctx, b)
		if err != nil {
			return nil, err
		}
		if heldBack > 0 {
			l.needRound = true
		}
		job.batch = batch
	}
	l.received(b, job, now)
	if job.empty() {
		return l.advancePull(now), nil
	}
	if l.applier {
		l.queue(job)
		return l.advancePull(now), nil
	}
	res, err := l.log.ApplyBatch(ctx, job.batch)
	return l.applied(job, res, err, now)
}

// applied accounts the store's answer to one batch and moves the pull it
// belongs to on (advancePull).
func (l *Link) applied(job *QueuedBatch, res store.ApplyResult, err error, now time.Time) ([]*pb.Frame, error) {
	if err != nil {
		return nil, fmt.Errorf("apply batch of %d ops from %s: %w", job.wireOps, l.peer, err)
	}
	if !l.applier && l.obs != nil {
		l.obs.Applied(job.Path(), res)
	}
	if res.Applied > 0 {
		l.behindMS = oldestStampMS(job.batch.Ops)
	}
	if res.Deferred > 0 {
		l.needRound = true
	}
	if p := l.pullOf(job.pullID); p != nil {
		p.pending--
		p.applied += res.Applied
		l.pull.progress = now // the pull chain moves on (pullOf found one)
	}
	return l.advancePull(now), nil
}

// oldestStampMS is the smallest HLC wall time among ops (0 if none
// parses). An origin's stamps grow with its origin_seq, so of each run of
// one origin's ops only the first is read.
func oldestStampMS(ops []store.Op) int64 {
	var oldest int64
	for i, op := range ops {
		if i > 0 && ops[i-1].Event.OriginReplica == op.Event.OriginReplica {
			continue
		}
		ts, err := hlc.Parse(op.Event.HLC)
		if err == nil && (oldest == 0 || ts.WallMS < oldest) {
			oldest = ts.WallMS
		}
	}
	return oldest
}

// checkIntegrity converts a batch for the store, first pinning the origin
// keys it announces (trust on first use) and running the integrity check
// (Integrity.Check) on its ops; heldBack ops wait for a later pull.
func (l *Link) checkIntegrity(ctx context.Context, b *pb.Batch) (store.Batch, int, error) {
	batch := batchFromWire(b)
	in := l.cfg.Integrity
	if in == nil {
		return batch, 0, nil
	}
	for _, k := range b.GetOriginKeys() {
		if err := in.Learn(ctx, k.GetOrigin(), k.GetPublicKey(), l.peer); err != nil {
			return store.Batch{}, 0, err
		}
	}
	arts := append(batch.Artifacts, l.art.queuedFor(batch.Ops, batch.Artifacts)...)
	ops, heldBack, err := in.Check(ctx, batch.Ops, arts, l.log.VersionVector(), l.takePreverified(b))
	if err != nil {
		return store.Batch{}, 0, fmt.Errorf("check integrity of a batch from %s: %w", l.peer, err)
	}
	batch.Ops = ops
	return batch, heldBack, nil
}
