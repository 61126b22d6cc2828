package lssync

import (
	"bytes"
	"maps"
	"time"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
)

// Anti-entropy, digest first. The initiator sends a Digest (a fixed-size
// hash of its version vector). If the responder's hash matches, it answers
// DigestReply and the round is over: two small frames whatever the number
// of origins. Otherwise it answers with its full Vector and asks for the
// initiator's; each end then pulls, per origin, the range it lacks.
//
// At most one round and one pull are in flight per link; a new round
// starts only when both are done. A lost or stale answer is ignored and
// the round times out (Config.RoundTimeout) and is retried.

// maybeRound starts a round when one is needed and none is running.
func (l *Link) maybeRound(now time.Time) []*pb.Frame {
	if !l.needRound || l.roundActive || l.pull != nil {
		return nil
	}
	l.needRound = false
	l.round++
	l.roundActive = true
	l.roundSent = now
	l.nextRound = now.Add(l.cfg.SyncInterval)
	l.roundVV = l.log.VersionVector()
	return []*pb.Frame{{Kind: &pb.Frame_Digest{Digest: &pb.Digest{
		Round:       l.round,
		Hash:        Digest(l.roundVV),
		OffsetNanos: int64(l.clock.offset),
		Follow:      l.caughtUp,
	}}}}
}

// onDigest answers a peer's round.
func (l *Link) onDigest(d *pb.Digest, now time.Time) []*pb.Frame {
	l.peerFollows = d.GetFollow()
	if d.GetOffsetNanos() != 0 {
		l.setClock(-time.Duration(d.GetOffsetNanos()), l.clock.rtt)
	}
	local := l.log.VersionVector()
	match := bytes.Equal(d.GetHash(), Digest(local))
	l.m.round(match)
	if !match {
		return []*pb.Frame{l.vector(d.GetRound(), local, true, now)}
	}
	// The peer's vector equals ours: it holds all we hold.
	raiseMap(l.peerHas, local)
	l.caughtUp = true
	l.lastSync = now
	return []*pb.Frame{{Kind: &pb.Frame_DigestReply{DigestReply: &pb.DigestReply{
		Round:         d.GetRound(),
		SentUnixNanos: now.UnixNano(),
		Follow:        true,
	}}}}
}

// onDigestReply ends this end's round: the vectors matched.
func (l *Link) onDigestReply(r *pb.DigestReply, now time.Time) {
	l.peerFollows = r.GetFollow()
	if !l.roundActive || r.GetRound() != l.round {
		return
	}
	l.roundActive = false
	l.measure(l.roundSent.UnixNano(), r.GetSentUnixNanos(), now)
	raiseMap(l.peerHas, l.roundVV)
	l.caughtUp = true
	l.lastSync = now
}

// onVector takes the peer's vector: answer it with ours if asked, and pull
// what this end lacks.
func (l *Link) onVector(v *pb.Vector, now time.Time) []*pb.Frame {
	l.peerFollows = v.GetFollow()
	l.peerDirect = originSet(v.GetDirectOrigins())
	raiseVector(l.peerHas, v.GetEntries())
	if v.GetReply() && l.roundActive && v.GetRound() == l.round {
		l.roundActive = false
		l.measure(l.roundSent.UnixNano(), v.GetSentUnixNanos(), now)
	}
	local := l.log.VersionVector()
	wants := missing(local, l.peerHas, l.self)
	if len(wants) == 0 {
		l.caughtUp = true
		l.lastSync = now
	}
	var out []*pb.Frame
	if v.GetReply() {
		out = append(out, l.vector(v.GetRound(), local, false, now))
	}
	switch {
	case len(wants) == 0 || l.pull != nil:
	case l.caughtUp:
		l.pullAfter = now.Add(l.cfg.TickInterval)
	default:
		out = append(out, l.startPull(wants, now))
	}
	return out
}

// pullLate starts the pull a round left to the first tick after
// pullAfter (onVector), for what pushes have not brought meanwhile.
func (l *Link) pullLate(now time.Time) []*pb.Frame {
	if l.pullAfter.IsZero() || now.Before(l.pullAfter) || l.pull != nil {
		return nil
	}
	l.pullAfter = time.Time{}
	if wants := missing(l.log.VersionVector(), l.peerHas, l.self); len(wants) > 0 {
		return []*pb.Frame{l.startPull(wants, now)}
	}
	return nil
}

func (l *Link) vector(round uint64, vv map[string]int64, reply bool, now time.Time) *pb.Frame {
	return &pb.Frame{Kind: &pb.Frame_Vector{Vector: &pb.Vector{
		Round:         round,
		Entries:       vectorEntries(vv),
		Reply:         reply,
		SentUnixNanos: now.UnixNano(),
		Follow:        l.caughtUp,
		DirectOrigins: l.directOrigins(),
	}}}
}

func (l *Link) directOrigins() []string {
	if l.direct == nil {
		return nil
	}
	return l.direct()
}

// originSet is the set of origins named (nil for none).
func originSet(origins []string) map[string]bool {
	if len(origins) == 0 {
		return nil
	}
	set := make(map[string]bool, len(origins))
	for _, o := range origins {
		set[o] = true
	}
	return set
}

// startPull asks for the ranges after wants' positions.
func (l *Link) startPull(wants []*pb.VectorEntry, now time.Time) *pb.Frame {
	l.lastPull++
	l.pull = &pullState{id: l.lastPull, progress: now}
	l.caughtUp = false
	return &pb.Frame{Kind: &pb.Frame_Pull{Pull: &pb.Pull{
		Id:         l.lastPull,
		After:      wants,
		MaxBatches: uint32(l.cfg.PullWindow),
	}}}
}

// pullProgress accounts one batch of the pull in flight and, on its last
// batch, asks for the next window or closes the pull with a confirming
// round (which also tells the peer to push: follow).
func (l *Link) pullProgress(b *pb.Batch, applied int, now time.Time) []*pb.Frame {
	if l.pull == nil || b.GetPullId() != l.pull.id {
		return nil
	}
	l.pull.progress = now
	l.pull.applied += applied
	if !b.GetLast() {
		return nil
	}
	progressed := l.pull.applied > 0
	l.pull = nil
	if b.GetMore() && progressed {
		if wants := missing(l.log.VersionVector(), l.peerHas, l.self); len(wants) > 0 {
			return []*pb.Frame{l.startPull(wants, now)}
		}
	}
	l.caughtUp = true
	l.lastSync = now
	// Confirm right away unless the pull stored nothing: then wait for the
	// next periodic round rather than spin on ops that cannot be applied.
	l.needRound = progressed
	return nil
}

// raiseMap sets dst[o] = max(dst[o], src[o]) for every origin of src.
func raiseMap(dst, src map[string]int64) {
	for origin, seq := range maps.All(src) {
		raise(dst, origin, seq)
	}
}
