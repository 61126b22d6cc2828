package lssync

import (
	"context"
	"fmt"
	"time"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// Reading the peer's artifact feed (artifact_feed.go): one page at a time.

// startArtifactPull asks for the page after the cursor.
func (l *Link) startArtifactPull(now time.Time) *pb.Frame {
	a := &l.art
	a.lastID++
	a.pull = &artifactPull{id: a.lastID, progress: now}
	return &pb.Frame{Kind: &pb.Frame_ArtifactPull{ArtifactPull: &pb.ArtifactPull{
		Id: a.lastID, FeedId: a.peerFeed, AfterSeq: a.cursor,
	}}}
}

// onArtifactPage takes the page of the pull in flight: it asks for the
// artifacts this end neither holds nor has queued.
func (l *Link) onArtifactPage(ctx context.Context, pg *pb.ArtifactPage, now time.Time) ([]*pb.Frame, error) {
	a := &l.art
	p := a.pull
	if p == nil || p.paged || pg.GetPullId() != p.id {
		return nil, nil // stale: a page given up
	}
	if pg.GetLastSeq() < pg.GetAfterSeq() || len(pg.GetRefs()) > 0 && pg.GetLastSeq() == pg.GetAfterSeq() {
		return nil, fmt.Errorf("%w: artifact page (%d, %d] with %d refs", ErrProtocol, pg.GetAfterSeq(), pg.GetLastSeq(), len(pg.GetRefs()))
	}
	p.paged, p.last, p.more, p.progress = true, pg.GetLastSeq(), pg.GetMore(), now
	// The page was read after every top the peer told before it, so
	// without more it is the peer's top (a later top raises it again).
	if p.more {
		a.known = max(a.known, p.last)
	} else {
		a.known = p.last
	}
	var ids []string
	for _, r := range pg.GetRefs() {
		if a.queued[r.GetId()] == nil {
			ids = append(ids, r.GetId())
		}
	}
	if len(ids) > 0 {
		missing, err := a.feed.MissingArtifacts(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("look up artifacts of %s's feed: %w", l.peer, err)
		}
		lacks := make(map[string]bool, len(missing))
		for _, id := range missing {
			lacks[id] = true
		}
		for _, r := range pg.GetRefs() {
			if lacks[r.GetId()] {
				p.want = append(p.want, r)
				delete(lacks, r.GetId()) // a ref listed twice is asked once
			}
		}
	}
	return l.advanceArtifacts(ctx, now)
}

// onArtifactBatch takes artifacts: a pushed batch (stored whatever the
// page in hand) or a batch of the get in flight.
func (l *Link) onArtifactBatch(ctx context.Context, b *pb.ArtifactBatch, now time.Time) ([]*pb.Frame, error) {
	a := &l.art
	if b.GetGetId() == 0 {
		if err := l.storeArtifacts(ctx, 0, b.GetArtifacts()); err != nil {
			return nil, err
		}
		return l.noteArtifactTop(b.GetFeedTop(), now), nil
	}
	p := a.pull
	if p == nil || p.getID == 0 || b.GetGetId() != p.getID || p.gotLast {
		return nil, nil // stale: a get given up
	}
	p.progress = now
	for _, w := range b.GetArtifacts() {
		p.got[w.GetId()] = true
	}
	p.gotLast = b.GetLast()
	if err := l.storeArtifacts(ctx, p.id, b.GetArtifacts()); err != nil {
		return nil, err
	}
	return l.advanceArtifacts(ctx, now)
}

// advanceArtifacts moves the page in hand on once what it waits for is
// done: the next get, then the cursor, then the next page.
func (l *Link) advanceArtifacts(ctx context.Context, now time.Time) ([]*pb.Frame, error) {
	a := &l.art
	for {
		p := a.pull
		if p == nil || !p.paged || p.pending > 0 || (p.getID != 0 && !p.gotLast) {
			return nil, nil
		}
		if p.getID != 0 {
			p.want = afterGet(p)
			p.getID, p.asked, p.got, p.gotLast = 0, nil, nil, false
		}
		if len(p.want) > 0 {
			return []*pb.Frame{l.artifactGet(p)}, nil
		}
		if !p.moved && p.last > a.cursor {
			// Queued behind the page's artifacts, once they are stored: a
			// cursor never covers an artifact that a failed write lost.
			p.moved = true
			job := &QueuedBatch{pullID: p.id, feed: true, batch: store.Batch{
				FeedCursor: &store.FeedCursor{Peer: l.peer, FeedID: a.peerFeed, Seq: p.last},
			}}
			if err := l.storeFeedJob(ctx, job); err != nil {
				return nil, err
			}
			continue
		}
		a.pull = nil
		if p.more || a.known > a.cursor {
			return []*pb.Frame{l.startArtifactPull(now)}, nil
		}
		return nil, nil
	}
}

// afterGet returns what is still to get once a get has been answered:
// the refs it did not bring, unless it brought none of them (the peer
// cannot serve them, so they are not asked again), then the rest.
func afterGet(p *artifactPull) []*pb.ArtifactRef {
	var left []*pb.ArtifactRef
	for _, r := range p.asked {
		if !p.got[r.GetId()] {
			left = append(left, r)
		}
	}
	if len(left) == len(p.asked) {
		left = nil
	}
	return append(left, p.want...)
}

// artifactGet asks for the next window of wanted artifacts: refs up to
// PullWindow*BatchBytes of content, at least one.
func (l *Link) artifactGet(p *artifactPull) *pb.Frame {
	budget := int64(l.cfg.PullWindow) * int64(l.cfg.BatchBytes)
	n, size := 0, int64(0)
	for n < len(p.want) && (n == 0 || size+p.want[n].GetSizeBytes() <= budget) {
		size += p.want[n].GetSizeBytes()
		n++
	}
	p.asked, p.want = p.want[:n], p.want[n:]
	l.art.lastID++
	p.getID, p.got = l.art.lastID, map[string]bool{}
	ids := make([]string, n)
	for i, r := range p.asked {
		ids[i] = r.GetId()
	}
	return &pb.Frame{Kind: &pb.Frame_ArtifactGet{ArtifactGet: &pb.ArtifactGet{Id: p.getID, Ids: ids}}}
}

// storeArtifacts stores received artifacts of page pullID (0: pushed).
func (l *Link) storeArtifacts(ctx context.Context, pullID uint64, ws []*pb.Artifact) error {
	if len(ws) == 0 {
		return nil
	}
	job := &QueuedBatch{pullID: pullID, feed: true, batch: store.Batch{Artifacts: make([]store.Artifact, 0, len(ws))}}
	for _, w := range ws {
		job.batch.Artifacts = append(job.batch.Artifacts, artifactFromWire(w))
	}
	return l.storeFeedJob(ctx, job)
}

// storeFeedJob hands a batch of the feed to the store: to the driver's
// applier (ApplyBehind; Stored reports it), or at once.
func (l *Link) storeFeedJob(ctx context.Context, job *QueuedBatch) error {
	if p := l.art.pull; p != nil && job.pullID == p.id {
		p.pending++
	}
	if l.applier {
		l.queue(job)
		return nil
	}
	res, err := l.log.ApplyBatch(ctx, job.batch)
	return l.feedStored(job, res, err)
}

// feedStored takes the store's answer to a batch of the feed; the caller
// then moves the page on (advanceArtifacts).
func (l *Link) feedStored(job *QueuedBatch, res store.ApplyResult, err error) error {
	a := &l.art
	if err != nil {
		return fmt.Errorf("store %d artifacts from %s's feed: %w", len(job.batch.Artifacts), l.peer, err)
	}
	if !l.applier && l.obs != nil {
		l.obs.Applied(job.Path(), res)
	}
	if fc := job.batch.FeedCursor; fc != nil && fc.FeedID == a.peerFeed {
		a.cursor = max(a.cursor, fc.Seq)
	}
	if p := a.pull; p != nil && job.pullID == p.id {
		p.pending--
	}
	return nil
}

// artifactsStored takes the store's answer to a batch of the feed that
// the driver stored (Stored) and moves the page on.
func (l *Link) artifactsStored(ctx context.Context, job *QueuedBatch, res store.ApplyResult, err error, now time.Time) ([]*pb.Frame, error) {
	if err := l.feedStored(job, res, err); err != nil {
		return nil, err
	}
	if p := l.art.pull; p != nil && job.pullID == p.id {
		p.progress = now
	}
	return l.advanceArtifacts(ctx, now)
}
