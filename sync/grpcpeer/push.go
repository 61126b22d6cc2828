package grpcpeer

import "slices"

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

// directOrigins lists, sorted, the peers this node has a ready session
// with: the origins whose ops they push to it themselves (Link.SetDirect),
// or that it pulls from them while it is behind. Relays of those origins'
// ops would only compete with that session: while this node is behind
// they come after the gap and are deferred, and when it follows, a relay
// and the direct push of the same origin's ops, stored by two sessions,
// can be stored out of order and deferred all the same. Each deferral
// starts a pull, a pulling node does not follow, and a set that left out
// the origins it pulls from made every pull switch the relays on and off
// again: in one run of three nodes at 3 x 500/s one node got a tenth of
// the ops by pull, seconds late.
func (r *Replicator) directOrigins() []string {
	var out []string
	r.eachSession(func(s *session) {
		if st := s.status.Load(); st.Ready && st.PeerReplicaID != "" && !slices.Contains(out, st.PeerReplicaID) {
			out = append(out, st.PeerReplicaID)
		}
	})
	slices.Sort(out)
	return out
}
