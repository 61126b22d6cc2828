package lssync

import "github.com/lsnode/lsnode/store"

// An artifact put and then named by an event would cross a session
// twice: pushed from the feed when it is put, and again ahead of the
// event's op in the op push. So, while the peer reads the feed, a push
// leaves out an artifact pushed on this session already, by either path
// (a pull answer always carries what its ops name). The peer's single
// applier stores a session's batches in order, so the artifact is stored
// before the op that comes after it, and a signed op is checked against
// the artifact queued ahead of it (queuedFor). An own op whose artifact
// is left out is signed by the batcher, with the digest remembered here,
// rather than by the session's writer, which signs from the artifacts a
// batch carries. An op push whose artifact did not arrive is deferred or
// held back there and pulled again, with its artifacts.

// maxSent bounds the memory of what was pushed; past it the memory starts
// over, and at worst an artifact is sent twice.
const maxSent = 1024

// queuedArtifact is a received artifact on its way to the store.
type queuedArtifact struct {
	art store.Artifact
	n   int // batches queued with it
}

func (a *artifactLink) queue(art store.Artifact) {
	if a.queued == nil {
		a.queued = map[string]*queuedArtifact{}
	}
	q := a.queued[art.ID]
	if q == nil {
		q = &queuedArtifact{art: art}
		a.queued[art.ID] = q
	}
	q.n++
}

func (a *artifactLink) unqueue(id string) {
	if q := a.queued[id]; q != nil {
		if q.n--; q.n <= 0 {
			delete(a.queued, id)
		}
	}
}

// queuedFor returns the queued artifacts that ops name and arts lacks.
func (a *artifactLink) queuedFor(ops []store.Op, arts []store.Artifact) []store.Artifact {
	if len(a.queued) == 0 {
		return nil
	}
	have := make(map[string]bool, len(arts))
	for _, art := range arts {
		have[art.ID] = true
	}
	var out []store.Artifact
	for _, op := range ops {
		for _, id := range op.Event.ArtifactIDs {
			if q := a.queued[id]; q != nil && !have[id] {
				have[id] = true
				out = append(out, q.art)
			}
		}
	}
	return out
}

// pushedBefore returns the sha256 of artifact id if it was pushed to the
// peer on this session; never when the peer does not read the feed.
func (a *artifactLink) pushedBefore(id string) (sha string, ok bool) {
	if !a.on {
		return "", false
	}
	sha, ok = a.sent[id]
	return sha, ok
}

// notePushed remembers that artifact id was pushed to the peer.
func (a *artifactLink) notePushed(id, sha string) {
	if !a.on {
		return
	}
	if a.sent == nil || len(a.sent) >= maxSent {
		a.sent = map[string]string{}
	}
	a.sent[id] = sha
}
