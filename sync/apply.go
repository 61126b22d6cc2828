package lssync

import (
	"context"
	"fmt"
	"time"

	"github.com/lsnode/lsnode/hlc"
	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
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
		res, err := l.log.ApplyBatch(ctx, batchFromWire(b))
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
