package lssync

import (
	"context"
	"maps"
	"slices"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// Local offers ops just committed on this node (local appends and ops
// applied from any peer) for live push. They are sent only when the peer
// follows (it was caught up at its last check) and only those the peer is
// not known to hold, so ops are relayed but not echoed back to where they
// came from. Ops of an origin the peer follows directly (its Vector's
// direct_origins) are not relayed either: the origin pushes them. A push
// that the peer cannot apply in order is deferred there and repaired by
// its next pull; a relay skipped while the peer's direct session was
// failing, by its next round.
//
// The ops may come in several lists (commits queued while the session was
// busy); they are batched together, in order.
func (l *Link) Local(ctx context.Context, lists ...[]store.Op) ([]*pb.Frame, error) {
	if !l.ready || !l.peerFollows {
		return nil, nil
	}
	b := newBatcher(l, 0, 0)
	for _, ops := range lists {
		for i := range ops {
			e := &ops[i].Event
			if e.OriginReplica == l.peer || e.OriginSeq <= l.peerHas[e.OriginReplica] ||
				(e.OriginReplica != l.self && l.peerDirect[e.OriginReplica]) {
				continue
			}
			if err := b.add(ctx, ops[i]); err != nil {
				return nil, err
			}
		}
	}
	return b.finish(), nil
}

// bridge is what a peer that starts to follow is sent at once: the ops it
// would be pushed (Local's rules) that this end holds and has neither sent
// it on this session nor knows it to hold, at most one batch. Ops
// committed here while the peer did not follow were not pushed (its pull
// was answered before them), and without them the next push would leave a
// hole in what the peer holds: deferred there, with every push after it,
// until another pull. A pulling peer does not follow, so under steady
// writes that could go on as long as the writes do. A hole larger than a
// batch is left to the peer's pull.
func (l *Link) bridge(ctx context.Context) ([]*pb.Frame, error) {
	local := l.log.VersionVector()
	var after []*pb.VectorEntry
	for _, origin := range slices.Sorted(maps.Keys(local)) {
		from := max(l.peerHas[origin], l.sent[origin])
		if origin == l.peer || (origin != l.self && l.peerDirect[origin]) || from >= local[origin] {
			continue
		}
		after = append(after, &pb.VectorEntry{Origin: origin, Seq: from})
	}
	if len(after) == 0 {
		return nil, nil
	}
	b := newBatcher(l, 0, 1)
	if _, err := l.fill(ctx, b, after, local); err != nil {
		return nil, err
	}
	return b.finish(), nil
}
