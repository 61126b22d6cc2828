package lssync

import (
	"context"
	"fmt"
	"slices"
	"time"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// The artifact feed. Ops travel by version vector and carry the artifacts
// they name; an artifact no event names yet would not travel at all. So
// each node also keeps a feed of the artifacts it holds, numbered in the
// order they arrived (store: the artifact feed), and each end of a session
// reads the other's feed after its cursor, a position it keeps per peer:
//
//	ArtifactPull{after} -> ArtifactPage{refs: id and size, last, more}
//	ArtifactGet{ids it lacks} -> ArtifactBatch... (last)
//	then the cursor moves to last, stored behind the artifacts it covers.
//
// A page names its artifacts without their content, so an artifact that
// reached this node by another way (a push, an event's batch, another
// peer's feed) is not sent again: in a full mesh each artifact is sent to
// each node once, although every feed lists every artifact. A node pushes
// the artifacts put on it to its peers as soon as they commit (an
// ArtifactBatch with get_id 0 and its new feed top) and tells its top in
// the round frames, so a peer pulls what a lost push or a relay added.
// Received artifacts are stored through the Log's ApplyBatch, which
// verifies them (sha256, size) as it does those of an event's batch: a bad
// one is quarantined and reported, and the cursor moves past it.
//
// The feature is negotiated in Hello (FeatureArtifactFeed): a peer that
// does not name it is sent none of these frames, and sending it one is a
// protocol violation, as it was before the feature existed.

// FeatureArtifactFeed names the artifact feed in Hello.features.
const FeatureArtifactFeed = "artifact_feed"

// ArtifactFeed is implemented by a Log that keeps an artifact feed
// (*store.Store through StoreLog). A Link over such a Log offers the
// feature; over another Log, artifacts travel only ahead of the events
// that name them.
type ArtifactFeed interface {
	// ArtifactFeedID names the feed; a new id means it was numbered again.
	ArtifactFeedID() string
	// ArtifactFeedTop is the seq of the newest committed entry.
	ArtifactFeedTop() int64
	// ArtifactFeedAfter returns at most limit entries after seq after.
	ArtifactFeedAfter(ctx context.Context, after int64, limit int) ([]store.FeedEntry, error)
	// ArtifactCursor returns the stored cursor into peer's feed (zero if
	// none); ApplyBatch stores one given in Batch.FeedCursor.
	ArtifactCursor(ctx context.Context, peer string) (store.FeedCursor, error)
	// MissingArtifacts returns the ids among ids that are not held.
	MissingArtifacts(ctx context.Context, ids []string) ([]string, error)
	// ArtifactsAdded returns a channel closed at the next commit that adds
	// entries (for drivers, which then call Link.LocalArtifacts).
	ArtifactsAdded() <-chan struct{}
}

// artifactLink is a Link's part in the artifact feed.
type artifactLink struct {
	feed     ArtifactFeed // the Log's; nil when it keeps none
	on       bool         // both ends keep a feed
	peerFeed string       // the peer's feed id
	// peerReady: the peer's end of the handshake is done too, so a push
	// can be sent: the listener's Hello, or a frame after the dialer's
	// Hello (a copy of that Hello does not count), showed it.
	peerReady bool

	// Reading the peer's feed: every entry up to cursor is held or was
	// refused here; known is the peer's top as last told.
	cursor int64
	known  int64
	pull   *artifactPull
	lastID uint64
	// queued holds, by id, the received artifacts (of the feed or of op
	// batches) queued for the store behind the link (ApplyBehind), and how
	// many times: a page naming one does not ask for it again, and a
	// signed op naming one is checked against it (artifact_dedup.go).
	queued map[string]*queuedArtifact
	// sent are the artifacts pushed to the peer on this session, by either
	// path (artifact_dedup.go).
	sent map[string]string // id -> sha256

	// pushed is the top of this end's feed up to which new entries were
	// offered to the peer (pushed, or listed in a page it was sent).
	pushed int64
}

// artifactPull is the one page of the peer's feed a link works on: asked
// for, then its missing artifacts asked for (ArtifactGet) one window at a
// time, then the cursor moved to its end once they are stored.
type artifactPull struct {
	id       uint64    // the pull's; the jobs of this page carry it
	getID    uint64    // the get in flight; 0 when none
	progress time.Time // last frame received or batch stored
	paged    bool      // its page arrived
	last     int64
	more     bool
	want     []*pb.ArtifactRef // refs still to get, in feed order
	asked    []*pb.ArtifactRef // refs of the get in flight
	got      map[string]bool   // ids the get in flight brought
	gotLast  bool              // its last batch arrived
	pending  int               // batches of this page not stored yet
	moved    bool              // the cursor job is queued or stored
}

// initArtifacts makes the link read and serve the artifact feed when the
// peer's Hello names the feature. The first round frames tell each end
// the other's top, and an end pulls when it is past its cursor, so a
// session whose ends hold each other's feeds sends no page at all.
func (l *Link) initArtifacts(ctx context.Context, h *pb.Hello) error {
	a := &l.art
	if a.feed == nil || !slices.Contains(h.GetFeatures(), FeatureArtifactFeed) {
		return nil
	}
	if h.GetArtifactFeedId() == "" {
		return fmt.Errorf("%w: %s offers the artifact feed without a feed id", ErrProtocol, h.GetReplicaId())
	}
	c, err := a.feed.ArtifactCursor(ctx, h.GetReplicaId())
	if err != nil {
		return err
	}
	a.on, a.peerFeed = true, h.GetArtifactFeedId()
	if c.FeedID == a.peerFeed {
		a.cursor = c.Seq
	}
	a.pushed = a.feed.ArtifactFeedTop()
	return nil
}

// helloFeatures fills the artifact feed's part of a Hello.
func (l *Link) helloFeatures(h *pb.Hello) {
	if f := l.art.feed; f != nil {
		h.Features = []string{FeatureArtifactFeed}
		h.ArtifactFeedId = f.ArtifactFeedID()
	}
}

// artifactTop is this end's feed top for a round frame; 0 when the peer
// does not read the feed.
func (l *Link) artifactTop() int64 {
	if !l.art.on {
		return 0
	}
	return l.art.feed.ArtifactFeedTop()
}

// noteArtifactTop takes the peer's feed top from a round frame or a push
// and pulls when it is past the cursor and no page is being worked on.
func (l *Link) noteArtifactTop(top int64, now time.Time) []*pb.Frame {
	a := &l.art
	if !a.on {
		return nil
	}
	a.known = max(a.known, top)
	if a.pull != nil || a.known <= a.cursor {
		return nil
	}
	return []*pb.Frame{l.startArtifactPull(now)}
}

// tickArtifacts gives up a page that made no progress for RoundTimeout
// (a frame was lost) and pulls again from the cursor.
func (l *Link) tickArtifacts(now time.Time) []*pb.Frame {
	a := &l.art
	if !a.on || a.pull == nil || now.Sub(a.pull.progress) <= l.cfg.RoundTimeout {
		return nil
	}
	a.pull = nil
	return []*pb.Frame{l.startArtifactPull(now)}
}

// artifactFrame checks that a frame of the artifact feed comes from a peer
// that offered it.
func (l *Link) artifactFrame(f *pb.Frame) error {
	if !l.art.on {
		return fmt.Errorf("%w: %s frame from a peer that did not offer the artifact feed", ErrProtocol, FrameKind(f))
	}
	return nil
}
