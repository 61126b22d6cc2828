package lssync

import (
	"context"
	"fmt"
	"time"

	"github.com/lsnode/lsnode/hlc"
	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// onBatch applies a batch (a pull answer or a push) through the Log's
// idempotent ApplyBatch: artifacts first, then ops, in one transaction.
// Ops that would leave a hole are deferred by the Log; a deferral asks for
// a round so the missing range is pulled.
func (l *Link) onBatch(ctx context.Context, b *pb.Batch, now time.Time) ([]*pb.Frame, error) {
	for _, op := range b.GetOps() {
		raise(l.peerHas, op.GetOriginReplica(), op.GetOriginSeq())
	}
	applied := 0
	if len(b.GetOps()) > 0 || len(b.GetArtifacts()) > 0 {
		batch, heldBack, err := l.checkIntegrity(ctx, b)
		if err != nil {
			return nil, err
		}
		if heldBack > 0 {
			l.needRound = true
		}
		res, err := l.log.ApplyBatch(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("apply batch of %d ops from %s: %w", len(b.GetOps()), l.peer, err)
		}
		l.m.applied(batchPath(b), res)
		applied = res.Applied
		if applied > 0 {
			l.behindMS = oldestStampMS(b.GetOps())
		}
		if res.Deferred > 0 {
			l.needRound = true
		}
	}
	if b.GetPullId() == 0 {
		return nil, nil
	}
	return l.pullProgress(b, applied, now), nil
}

// oldestStampMS is the smallest HLC wall time among ops (0 if none
// parses).
func oldestStampMS(ops []*pb.Op) int64 {
	var oldest int64
	for _, op := range ops {
		ts, err := hlc.Parse(op.GetHlc())
		if err == nil && (oldest == 0 || ts.WallMS < oldest) {
			oldest = ts.WallMS
		}
	}
	return oldest
}

func batchPath(b *pb.Batch) string {
	if b.GetPullId() == 0 {
		return "push"
	}
	return "pull"
}

// checkIntegrity converts a batch for the store, first pinning the origin
// keys it announces (trust on first use) and running the integrity check
// (Integrity.check) on its ops; heldBack ops wait for a later pull.
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
	ops, heldBack, err := in.check(ctx, batch.Ops, batch.Artifacts, l.log.VersionVector(), l.takePreverified(b))
	if err != nil {
		return store.Batch{}, 0, fmt.Errorf("check integrity of a batch from %s: %w", l.peer, err)
	}
	batch.Ops = ops
	return batch, heldBack, nil
}
