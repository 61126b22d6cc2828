package lssync

import (
	"context"
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

// pushSessions returns the sessions to offer committed ops to: one ready
// session per peer replica. Two nodes that list each other run two
// sessions; pushing on both would send every op, and every relay, twice,
// and the receiver would decode and compare each copy for nothing. A
// session whose peer follows is preferred (Link.Local pushes only to a
// following peer, and each session learns that from its own rounds), then
// the outbound one, then the older one. A session that is not ready gets
// nothing: Link.Local would ignore it. When the chosen session ends, ops
// queued on it are lost for that peer; its next push then leaves a hole,
// is deferred, and the deferral starts the round that pulls the range.
func (r *Replicator) pushSessions() []*session {
	var out []*session
	byPeer := map[string]int{} // peer replica -> index in out
	r.eachSession(func(s *session) {
		st := s.status.Load()
		if !st.Ready || st.PeerReplicaID == "" {
			return
		}
		i, seen := byPeer[st.PeerReplicaID]
		switch {
		case !seen:
			byPeer[st.PeerReplicaID] = len(out)
			out = append(out, s)
		case pushBefore(s, out[i]):
			out[i] = s
		}
	})
	return out
}

// pushBefore orders two sessions with the same peer for pushSessions.
func pushBefore(a, b *session) bool {
	if fa, fb := a.status.Load().PeerFollows, b.status.Load().PeerFollows; fa != fb {
		return fa
	}
	if (a.dir == "outbound") != (b.dir == "outbound") {
		return a.dir == "outbound"
	}
	return a.order < b.order
}

// directOrigins lists, sorted, the peers this node follows on a ready
// session: the origins whose ops they push to it themselves (Link.SetDirect).
func (r *Replicator) directOrigins() []string {
	var out []string
	r.eachSession(func(s *session) {
		if st := s.status.Load(); st.Ready && st.CaughtUp && st.PeerReplicaID != "" && !slices.Contains(out, st.PeerReplicaID) {
			out = append(out, st.PeerReplicaID)
		}
	})
	slices.Sort(out)
	return out
}
