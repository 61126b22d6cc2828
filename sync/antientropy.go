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
		ArtifactTop: l.artifactTop(),
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
	if l.obs != nil {
		l.obs.Round(match)
	}
	pull := l.noteArtifactTop(d.GetArtifactTop(), now)
	if !match {
		return append([]*pb.Frame{l.vector(d.GetRound(), local, true, now)}, pull...)
	}
	// The peer's vector equals ours: it holds all we hold.
	raiseMap(l.peerHas, local)
	l.caughtUp = true
	l.lastSync = now
	return append([]*pb.Frame{{Kind: &pb.Frame_DigestReply{DigestReply: &pb.DigestReply{
		Round:         d.GetRound(),
		SentUnixNanos: now.UnixNano(),
		Follow:        true,
		ArtifactTop:   l.artifactTop(),
	}}}}, pull...)
}

// onDigestReply ends this end's round: the vectors matched.
func (l *Link) onDigestReply(r *pb.DigestReply, now time.Time) []*pb.Frame {
	l.peerFollows = r.GetFollow()
	pull := l.noteArtifactTop(r.GetArtifactTop(), now)
	if !l.roundActive || r.GetRound() != l.round {
		return pull
	}
	l.roundActive = false
	l.measure(l.roundSent.UnixNano(), r.GetSentUnixNanos(), now)
	raiseMap(l.peerHas, l.roundVV)
	l.caughtUp = true
	l.lastSync = now
	return pull
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
	wants := missing(l.heldOrQueued(), l.peerHas, l.skipOrigin())
	if len(wants) == 0 {
		l.caughtUp = true
		l.lastSync = now
	}
	out := l.noteArtifactTop(v.GetArtifactTop(), now)
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
	if wants := missing(l.heldOrQueued(), l.peerHas, l.skipOrigin()); len(wants) > 0 {
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
		ArtifactTop:   l.artifactTop(),
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

// advancePull moves the pull in flight on once its last batch has
// arrived: it asks for the next window while the peer holds more and the
// pull makes progress, else it closes the pull with a confirming round
// (which also tells the peer to push: follow) once its batches are
// stored.
//
// Progress: a link that applies in Handle knows the window's outcome here
// and goes on only when it stored ops. A link whose batches are stored
// behind it (apply_queue.go) asks for the next window as soon as the
// current one has arrived, if it brought ops this end neither holds nor
// has queued and the window before it is stored and stored some; so the
// pull runs at most one window ahead of the store, and a window that
// stores nothing (its ops deferred or held already) stops the chain as it
// does when applying in Handle.
func (l *Link) advancePull(now time.Time) []*pb.Frame {
	p := l.pull
	if p == nil || !p.last {
		return nil
	}
	if prev := l.prevPull; prev != nil {
		if prev.pending > 0 {
			return nil // one window ahead of the store at most
		}
		l.prevPull = nil
		p.settle = prev.applied == 0
	}
	stored := p.pending == 0
	goOn := p.more && p.fresh && ((stored && p.applied > 0) || (!stored && !p.settle))
	if goOn {
		if wants := missing(l.heldOrQueued(), l.peerHas, l.skipOrigin()); len(wants) > 0 {
			if !stored {
				l.prevPull = p
			}
			return []*pb.Frame{l.startPull(wants, now)}
		}
	}
	if !stored {
		return nil // close once its batches are stored
	}
	l.pull = nil
	l.caughtUp = true
	l.lastSync = now
	// Confirm right away unless the pull stored nothing: then wait for the
	// next periodic round rather than spin on ops that cannot be applied.
	l.needRound = p.applied > 0
	return nil
}

// raiseMap sets dst[o] = max(dst[o], src[o]) for every origin of src.
func raiseMap(dst, src map[string]int64) {
	for origin, seq := range maps.All(src) {
		raise(dst, origin, seq)
	}
}
