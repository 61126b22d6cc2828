package lssync

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"time"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
)

// Link is the deterministic core of one replication session: the state
// machine both ends of a session run. It opens no sockets, starts no
// goroutines and reads no clock: every input (a received frame, a timer
// tick, ops committed locally) comes with the caller's wall time, and every
// output is a list of frames to send. Its only side effects are reads and
// idempotent writes on the Log.
//
// A Link is not safe for concurrent use; one goroutine (a session loop, or
// the simulator) drives it.
type Link struct {
	cfg    Config
	log    Log
	self   string
	dialer bool
	obs    Observer // nil: nothing recorded
	logger *slog.Logger

	ready    bool
	openedAt time.Time
	peer     string
	clock    clockState

	// peerHas is a lower bound of what the peer holds, per origin: from its
	// vectors, its pulls and the ops it sent. It filters pushes and gives
	// the lag.
	peerHas map[string]int64
	// sent is the largest origin_seq of each origin this end has sent the
	// peer on this session, in pull answers and pushes.
	sent map[string]int64
	// behindMS is the origin wall time of the oldest op of the latest
	// batch that stored ops (LinkStatus.BehindMS).
	behindMS int64
	// caughtUp: this end held everything the peer offered at the last
	// check; it then asks the peer to push (follow).
	caughtUp    bool
	peerFollows bool
	// direct lists the origins this node follows on a session with the
	// origin itself (nil: none told); peerDirect is the peer's list from
	// its latest Vector. Local relays no op of those origins to the peer.
	direct     func() []string
	peerDirect map[string]bool

	round       uint64
	roundActive bool
	roundSent   time.Time
	roundVV     map[string]int64
	nextRound   time.Time
	needRound   bool

	pull     *pullState
	prevPull *pullState // the window before pull, while its batches are stored (apply_queue.go)
	lastPull uint64
	// pullAfter is set when a round found ops the peer holds and this end
	// lacks while it was following: they are most likely pushes in flight
	// (between nodes that list each other, on the other session), so the
	// first tick from then pulls only what is still missing (pullLate).
	pullAfter time.Time
	lastSync  time.Time

	pre       *preverified // the driver's verdict on the next batch (SetPreverified)
	deferSign bool         // the driver signs own ops before sending them (SignInWriter)

	// Applying behind the link (apply_queue.go): batches handed to the
	// session and not yet stored, and the top origin_seq they bring.
	applier   bool
	jobs      []*QueuedBatch
	applying  int
	queuedTop map[string]int64

	art artifactLink // the artifact feed (artifact_feed.go)
}

// pullState tracks the one pull a link has in flight (and, when batches
// are stored behind the link, the window before it: Link.prevPull).
type pullState struct {
	id       uint64
	progress time.Time // last batch received or stored
	applied  int       // ops newly stored by this window
	pending  int       // its batches not yet stored
	last     bool      // its last batch arrived
	more     bool      // ... saying the peer holds more
	fresh    bool      // it brought ops neither held nor queued
	settle   bool      // the window before stored nothing: go on only if this one does
}

// LinkStatus is a snapshot of a link for the roster.
type LinkStatus struct {
	PeerReplicaID string
	Ready         bool
	CaughtUp      bool
	PeerFollows   bool
	LastSync      time.Time // zero until the first completed round or pull
	LagOps        int64     // ops the peer holds that this node lacks, from vectors
	// BehindMS is the origin HLC wall time (ms) of the oldest op in the
	// latest batch from the peer that stored ops; 0 until one did.
	BehindMS int64
	// PeerHas is a copy of what the peer is known to hold, per origin.
	PeerHas     map[string]int64
	ClockOffset time.Duration
	RTT         time.Duration
	OffsetKnown bool
	ClockSkewed bool
}

// NewLink returns the core of one session end. dialer is true on the end
// that opened the connection: it speaks first and runs the periodic rounds.
func NewLink(cfg Config, log Log, dialer bool) *Link {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	l := &Link{
		cfg:     cfg,
		log:     log,
		self:    log.ReplicaID(),
		dialer:  dialer,
		logger:  logger,
		peerHas: map[string]int64{},
		sent:    map[string]int64{},
	}
	l.art.feed, _ = log.(ArtifactFeed)
	return l
}

// Handle processes one received frame. A non-nil error ends the session:
// a refused handshake (ErrClusterMismatch, ErrProtocolVersion,
// ErrSelfConnection), a protocol violation, or a storage failure.
func (l *Link) Handle(ctx context.Context, f *pb.Frame, now time.Time) ([]*pb.Frame, error) {
	if h, ok := f.GetKind().(*pb.Frame_Hello); ok {
		return l.onHello(ctx, h.Hello, now)
	}
	if !l.ready {
		return nil, fmt.Errorf("%w: %s frame before the handshake", ErrProtocol, FrameKind(f))
	}
	l.art.peerReady = true
	follows := l.peerFollows
	out, err := l.dispatch(ctx, f, now)
	if err != nil {
		return nil, err
	}
	if l.peerFollows && !follows {
		bridge, err := l.bridge(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, bridge...)
	}
	return append(out, l.maybeRound(now)...), nil
}

func (l *Link) dispatch(ctx context.Context, f *pb.Frame, now time.Time) ([]*pb.Frame, error) {
	switch k := f.GetKind().(type) {
	case *pb.Frame_Digest:
		return l.onDigest(k.Digest, now), nil
	case *pb.Frame_DigestReply:
		return l.onDigestReply(k.DigestReply, now), nil
	case *pb.Frame_Vector:
		return l.onVector(k.Vector, now), nil
	case *pb.Frame_Pull:
		return l.onPull(ctx, k.Pull)
	case *pb.Frame_Batch:
		return l.onBatch(ctx, k.Batch, now)
	case *pb.Frame_ArtifactPull, *pb.Frame_ArtifactPage, *pb.Frame_ArtifactGet, *pb.Frame_ArtifactBatch:
		if err := l.artifactFrame(f); err != nil {
			return nil, err
		}
		return l.dispatchArtifact(ctx, f, now)
	default:
		return nil, fmt.Errorf("%w: empty frame", ErrProtocol)
	}
}

func (l *Link) dispatchArtifact(ctx context.Context, f *pb.Frame, now time.Time) ([]*pb.Frame, error) {
	switch k := f.GetKind().(type) {
	case *pb.Frame_ArtifactPull:
		return l.onArtifactPull(ctx, k.ArtifactPull)
	case *pb.Frame_ArtifactPage:
		return l.onArtifactPage(ctx, k.ArtifactPage, now)
	case *pb.Frame_ArtifactGet:
		return l.onArtifactGet(ctx, k.ArtifactGet)
	default:
		return l.onArtifactBatch(ctx, f.GetArtifactBatch(), now)
	}
}

// Tick advances timers: handshake and round timeouts, the periodic round.
func (l *Link) Tick(now time.Time) ([]*pb.Frame, error) {
	if !l.ready {
		if now.Sub(l.openedAt) > l.cfg.RoundTimeout {
			return nil, ErrHandshakeTimeout
		}
		return nil, nil
	}
	if l.roundActive && now.Sub(l.roundSent) > l.cfg.RoundTimeout {
		l.roundActive = false
		l.needRound = true
	}
	if l.pull != nil && now.Sub(l.pull.progress) > l.cfg.RoundTimeout {
		l.pull, l.prevPull = nil, nil
		l.needRound = true
	}
	if l.dialer && !now.Before(l.nextRound) {
		l.needRound = true
	}
	out := append(l.pullLate(now), l.maybeRound(now)...)
	return append(out, l.tickArtifacts(now)...), nil
}

// Lagged tells the link that committed ops were not offered to Local (a
// full queue or a lagged subscription): the peer may miss them, so a round
// is started to make it pull.
func (l *Link) Lagged(now time.Time) []*pb.Frame {
	if !l.ready {
		return nil
	}
	l.needRound = true
	return l.maybeRound(now)
}

// SetDirect gives the link the origins this node follows on a session
// with the origin itself; its Vectors tell the peer, which then does not
// relay their ops here. Without it the link tells none (every op may be
// relayed here, as before).
func (l *Link) SetDirect(direct func() []string) { l.direct = direct }

// Peer returns the peer's replica id once the handshake is done.
func (l *Link) Peer() string { return l.peer }

// Ready reports whether the handshake is done.
func (l *Link) Ready() bool { return l.ready }

// PeerFollows reports whether the peer said, in its latest round frame,
// that it is caught up: committed ops are then pushed to it (Local).
func (l *Link) PeerFollows() bool { return l.peerFollows }

// Status returns a snapshot for the roster. local is this replica's
// current version vector.
func (l *Link) Status(local map[string]int64) LinkStatus {
	return LinkStatus{
		PeerReplicaID: l.peer,
		Ready:         l.ready,
		CaughtUp:      l.caughtUp,
		PeerFollows:   l.peerFollows,
		LastSync:      l.lastSync,
		LagOps:        lagOps(local, l.peerHas),
		BehindMS:      l.behindMS,
		PeerHas:       maps.Clone(l.peerHas),
		ClockOffset:   l.clock.offset,
		RTT:           l.clock.rtt,
		OffsetKnown:   l.clock.known,
		ClockSkewed:   l.clock.skewed,
	}
}

// FrameKind names a frame's kind for logs and metrics.
func FrameKind(f *pb.Frame) string {
	switch f.GetKind().(type) {
	case *pb.Frame_Hello:
		return "hello"
	case *pb.Frame_Digest:
		return "digest"
	case *pb.Frame_DigestReply:
		return "digest_reply"
	case *pb.Frame_Vector:
		return "vector"
	case *pb.Frame_Pull:
		return "pull"
	case *pb.Frame_Batch:
		return "batch"
	case *pb.Frame_ArtifactPull:
		return "artifact_pull"
	case *pb.Frame_ArtifactPage:
		return "artifact_page"
	case *pb.Frame_ArtifactGet:
		return "artifact_get"
	case *pb.Frame_ArtifactBatch:
		return "artifact_batch"
	default:
		return "empty"
	}
}
