package lssync

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// Serving this end's artifact feed (artifact_feed.go): pages, gets and
// pushes.

// onArtifactPull answers a page of this end's feed: at most BatchOps
// entries after the position, by id and size. A position in another feed
// (numbered before a restore) reads from the start.
func (l *Link) onArtifactPull(ctx context.Context, p *pb.ArtifactPull) ([]*pb.Frame, error) {
	a := &l.art
	if p.GetId() == 0 || p.GetAfterSeq() < 0 {
		return nil, fmt.Errorf("%w: artifact pull id %d after %d", ErrProtocol, p.GetId(), p.GetAfterSeq())
	}
	after := p.GetAfterSeq()
	if p.GetFeedId() != a.feed.ArtifactFeedID() {
		after = 0
	}
	entries, err := a.feed.ArtifactFeedAfter(ctx, after, l.cfg.BatchOps+1)
	if err != nil {
		return nil, fmt.Errorf("read the artifact feed after %d: %w", after, err)
	}
	page := &pb.ArtifactPage{PullId: p.GetId(), AfterSeq: after, LastSeq: after}
	if len(entries) > l.cfg.BatchOps {
		entries, page.More = entries[:l.cfg.BatchOps], true
	}
	for _, e := range entries {
		page.Refs = append(page.Refs, &pb.ArtifactRef{Id: e.ID, SizeBytes: e.SizeBytes})
		page.LastSeq = e.Seq
	}
	a.pushed = max(a.pushed, page.LastSeq) // the peer gets what it lacks of them by this page
	return []*pb.Frame{{Kind: &pb.Frame_ArtifactPage{ArtifactPage: page}}}, nil
}

// onArtifactGet answers a get: the artifacts asked for that this end
// holds, in order, in batches of about BatchBytes, up to about
// PullWindow*BatchBytes in all (at least one artifact); the last batch
// says so. An id that is not held, or cannot name an artifact, is left
// out.
func (l *Link) onArtifactGet(ctx context.Context, g *pb.ArtifactGet) ([]*pb.Frame, error) {
	if g.GetId() == 0 {
		return nil, fmt.Errorf("%w: artifact get without an id", ErrProtocol)
	}
	budget := l.cfg.PullWindow * l.cfg.BatchBytes
	cur := &pb.ArtifactBatch{GetId: g.GetId()}
	var out []*pb.Frame
	curBytes, total := 0, 0
	for _, id := range g.GetIds() {
		if total > 0 && total >= budget {
			break
		}
		art, err := l.log.GetArtifact(ctx, id)
		if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read artifact %s: %w", id, err)
		}
		w := artifactToWire(art)
		size := proto.Size(w)
		if len(cur.Artifacts) > 0 && curBytes+size > l.cfg.BatchBytes {
			out = append(out, &pb.Frame{Kind: &pb.Frame_ArtifactBatch{ArtifactBatch: cur}})
			cur, curBytes = &pb.ArtifactBatch{GetId: g.GetId()}, 0
		}
		cur.Artifacts = append(cur.Artifacts, w)
		curBytes += size
		total += size
	}
	cur.Last = true
	return append(out, &pb.Frame{Kind: &pb.Frame_ArtifactBatch{ArtifactBatch: cur}}), nil
}

// LocalArtifacts offers the entries added to this node's feed since the
// last offer for push (a driver calls it when ArtifactFeed.ArtifactsAdded
// fires): the peer is sent at once the artifacts put on this node among
// them, up to a batch of BatchBytes, and told the new top, so that it
// pulls the rest by page. When the new entries are all the peer's own or
// of origins it follows directly (Vector.direct_origins), which it gets
// from them, nothing is sent: the next round frame tells the top. A push
// that is lost is repaired by that top too.
func (l *Link) LocalArtifacts(ctx context.Context) ([]*pb.Frame, error) {
	a := &l.art
	if !l.ready || !a.on || !a.peerReady {
		return nil, nil
	}
	top := a.feed.ArtifactFeedTop()
	if top <= a.pushed {
		return nil, nil
	}
	entries, err := a.feed.ArtifactFeedAfter(ctx, a.pushed, l.cfg.BatchOps)
	if err != nil {
		return nil, fmt.Errorf("read the artifact feed after %d: %w", a.pushed, err)
	}
	// Entries past the read (a backlog over BatchOps) and puts that do not
	// fit the batch are the peer's to pull: it is told the top.
	tell := len(entries) == l.cfg.BatchOps && entries[len(entries)-1].Seq < top
	push := &pb.ArtifactBatch{FeedTop: top}
	size := 0
	for _, e := range entries {
		if e.Seq > top {
			break // committed since top was read: the next offer's
		}
		switch {
		case e.OriginReplica != l.self:
			tell = tell || (e.OriginReplica != l.peer && !l.peerDirect[e.OriginReplica])
		case a.sent[e.ID] != "": // with the op that names it
		case len(push.Artifacts) > 0 && size+int(e.SizeBytes) > l.cfg.BatchBytes:
			tell = true
		default:
			art, err := l.log.GetArtifact(ctx, e.ID)
			if err != nil {
				return nil, fmt.Errorf("read artifact %s: %w", e.ID, err)
			}
			w := artifactToWire(art)
			push.Artifacts = append(push.Artifacts, w)
			size += proto.Size(w)
			a.notePushed(e.ID, art.SHA256)
		}
	}
	a.pushed = top
	if len(push.Artifacts) == 0 && !tell {
		return nil, nil
	}
	return []*pb.Frame{{Kind: &pb.Frame_ArtifactBatch{ArtifactBatch: push}}}, nil
}
