package lssync

import (
	"context"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// Local offers ops just committed on this node (local appends and ops
// applied from any peer) for live push. They are sent only when the peer
// follows (it was caught up at its last check) and only those the peer is
// not known to hold, so ops are relayed but not echoed back to where they
// came from. A push that the peer cannot apply in order is deferred there
// and repaired by its next pull.
func (l *Link) Local(ctx context.Context, ops []store.Op) ([]*pb.Frame, error) {
	if !l.ready || !l.peerFollows {
		return nil, nil
	}
	b := newBatcher(l, 0, 0)
	for _, op := range ops {
		e := op.Event
		if e.OriginReplica == l.peer || e.OriginSeq <= l.peerHas[e.OriginReplica] {
			continue
		}
		if err := b.add(ctx, op); err != nil {
			return nil, err
		}
	}
	return b.finish(), nil
}
