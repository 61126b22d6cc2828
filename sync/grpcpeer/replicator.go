package grpcpeer

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lsnode/lsnode/hlc"
	lssync "github.com/lsnode/lsnode/sync"
)

// Replicator keeps this node's log converged with its peers': it dials
// every added peer and serves inbound sessions (RegisterGRPC), each session
// running a Link. One subscription to the log feeds the push of one
// session per peer (pushSessions).
//
// Goroutines: the fan-out loop, one dial loop per outbound peer, and per
// session a reader and a writer; all are started through goFunc and joined
// by Stop. Inbound session loops run on gRPC's handler goroutines.
//
// Lock order: Replicator.mu before outPeer.mu; neither is held across
// network I/O or a call into the Log.
type Replicator struct {
	cfg    Config
	log    lssync.Log
	self   string // log's replica id
	wall   hlc.WallClock
	m      *metrics
	lag    *originLag
	logger *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu struct {
		sync.Mutex
		started, stopped bool
		peers            map[string]*outPeer // by address
		sessions         map[*session]struct{}
		tracked          uint64 // sessions tracked so far (session.order)
		inbound          int    // inbound sessions being served

		// synced is the latest LastSync of the ended sessions, by peer
		// replica id (LastSync).
		synced map[string]time.Time
	}
}

// NewReplicator validates cfg and returns a stopped Replicator over log.
func NewReplicator(cfg Config, log lssync.Log) (*Replicator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Logger = cfg.Logger.With("component", "sync", "replica", log.ReplicaID())
	r := &Replicator{cfg: cfg, log: log, self: log.ReplicaID(), wall: cfg.Wall, m: newMetrics(cfg.Metrics), logger: cfg.Logger}
	if r.wall == nil {
		r.wall = hlc.SystemClock{}
	}
	r.lag = newOriginLag(r.m, r.logger, cfg.ProgressInterval)
	r.registerPushGauges(cfg.Metrics)
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.mu.peers = map[string]*outPeer{}
	r.mu.sessions = map[*session]struct{}{}
	r.mu.synced = map[string]time.Time{}
	for _, p := range cfg.Peers {
		if err := r.AddPeer(p); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Start begins replication: the push fan-out and a dial loop for every
// peer added so far. ctx only bounds Start itself; Stop ends the work.
func (r *Replicator) Start(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mu.stopped {
		return ErrStopped
	}
	if r.mu.started {
		return nil
	}
	r.mu.started = true
	sub := r.log.Subscribe(r.cfg.LocalQueue)
	r.goFunc(func() { r.fanOut(sub) })
	for _, p := range r.mu.peers {
		r.startPeerLocked(p)
	}
	return nil
}

// Stop ends every session and dial loop and waits for all goroutines. It
// is idempotent. The gRPC server should be stopped by its owner as well.
func (r *Replicator) Stop() {
	r.mu.Lock()
	r.mu.stopped = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
}

// AddPeer adds a peer address (host:port) to dial; adding a known address
// does nothing. Membership calls it as nodes join.
func (r *Replicator) AddPeer(addr string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mu.stopped {
		return ErrStopped
	}
	if _, ok := r.mu.peers[addr]; ok {
		return nil
	}
	p := newOutPeer(addr, nil)
	r.mu.peers[addr] = p
	if r.mu.started {
		r.startPeerLocked(p)
	}
	return nil
}

// RemovePeer stops dialing addr and ends its session, waiting for its dial
// loop to exit. Unknown addresses are ignored.
func (r *Replicator) RemovePeer(addr string) {
	r.mu.Lock()
	p, ok := r.mu.peers[addr]
	delete(r.mu.peers, addr)
	r.mu.Unlock()
	if !ok || p.cancel == nil {
		return
	}
	p.cancel()
	<-p.done
	p.mu.Lock()
	sess := p.mu.sess
	p.mu.Unlock()
	if sess != nil {
		r.m.forget(sess.status.Load().PeerReplicaID)
	}
}

func (r *Replicator) startPeerLocked(p *outPeer) {
	ctx, cancel := context.WithCancel(r.ctx)
	p.cancel = cancel
	r.goFunc(func() { r.dialLoop(ctx, p) })
}

// Peers returns the roster: configured peers (sorted by address), then
// inbound sessions.
func (r *Replicator) Peers() []PeerStatus {
	r.mu.Lock()
	peers := make([]*outPeer, 0, len(r.mu.peers))
	for _, p := range r.mu.peers {
		peers = append(peers, p)
	}
	var inbound []*session
	for s := range r.mu.sessions {
		if s.dir == "inbound" {
			inbound = append(inbound, s)
		}
	}
	r.mu.Unlock()
	now := r.wall.Now()
	out := make([]PeerStatus, 0, len(peers)+len(inbound))
	for _, p := range peers {
		out = append(out, p.status(now))
	}
	slices.SortFunc(out, func(a, b PeerStatus) int { return strings.Compare(a.Addr, b.Addr) })
	for _, s := range inbound {
		out = append(out, peerStatus(s.addr, s.dir, *s.status.Load(), now))
	}
	return out
}

func (p *outPeer) status(now time.Time) PeerStatus {
	p.mu.Lock()
	sess, state, err := p.mu.sess, p.mu.state, p.mu.err
	p.mu.Unlock()
	var ps PeerStatus
	if sess != nil {
		ps = peerStatus(p.addr, "outbound", *sess.status.Load(), now)
	} else {
		ps = PeerStatus{Addr: p.addr, Direction: "outbound", State: state}
	}
	if err != nil {
		ps.LastError = err.Error()
	}
	return ps
}

// LastSync is when the latest round or pull with replica replicaID
// completed, over every session with it, live or ended (a peer that
// crashed keeps its time); zero if none did.
func (r *Replicator) LastSync(replicaID string) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	last := r.mu.synced[replicaID]
	for s := range r.mu.sessions {
		if st := s.status.Load(); st.PeerReplicaID == replicaID && st.LastSync.After(last) {
			last = st.LastSync
		}
	}
	return last
}

// Origins returns the catch-up progress of every origin some peer has
// told this node about, sorted by origin.
func (r *Replicator) Origins() []OriginLag { return r.lag.rows() }

// refreshOriginLag recomputes the per-origin lag from every session's
// latest status and this node's vector.
func (r *Replicator) refreshOriginLag(local map[string]int64) {
	known := map[string]int64{}
	r.eachSession(func(s *session) {
		if st := s.status.Load(); st.Ready {
			for origin, seq := range st.PeerHas {
				known[origin] = max(known[origin], seq)
			}
		}
	})
	r.lag.update(r.wall.Now(), r.self, local, known)
}

// serveInbound runs an accepted session until it ends.
func (r *Replicator) serveInbound(ctx context.Context, addr string, stream frameStream) error {
	r.mu.Lock()
	if !r.mu.started || r.mu.stopped {
		r.mu.Unlock()
		return fmt.Errorf("%w: not accepting sessions", ErrStopped)
	}
	if r.mu.inbound >= r.cfg.MaxInboundSessions {
		r.mu.Unlock()
		r.m.sessionRefused()
		r.logger.Debug("inbound replication session refused", "addr", addr, "serving", r.cfg.MaxInboundSessions)
		return fmt.Errorf("%w: serving %d already", ErrTooManySessions, r.cfg.MaxInboundSessions)
	}
	r.mu.inbound++
	r.wg.Add(1)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.mu.inbound--
		r.mu.Unlock()
		r.wg.Done()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	unlink := context.AfterFunc(r.ctx, cancel)
	defer unlink()
	s := r.newSession("inbound", addr, stream)
	r.track(s, true)
	defer r.track(s, false)
	err := s.run(ctx)
	if err != nil && ctx.Err() == nil {
		r.logger.Info("inbound replication session ended", "addr", addr, "peer", s.link.Peer(), "err", err)
	}
	return err
}

// track adds or removes a session from the set that receives pushes. The
// last session with a peer to end takes the peer's clock series with it:
// they are measurements of a live session, and a stale skew would keep
// its alert firing for a peer that is gone.
func (r *Replicator) track(s *session, add bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if add {
		r.mu.tracked++
		s.order = r.mu.tracked
		r.mu.sessions[s] = struct{}{}
		return
	}
	delete(r.mu.sessions, s)
	st := s.status.Load()
	peer := st.PeerReplicaID
	if peer == "" {
		return
	}
	if st.LastSync.After(r.mu.synced[peer]) {
		r.mu.synced[peer] = st.LastSync
	}
	for other := range r.mu.sessions {
		if other.status.Load().PeerReplicaID == peer {
			return
		}
	}
	r.m.forgetClock(peer)
}

// fanOut hands every committed op list to every push session
// (pushSessions) without blocking. If the subscription lags it resubscribes and tells every
// session to ask its peer for a round. When the log keeps an artifact
// feed, each commit that adds to it wakes the push sessions too, which
// push the new artifacts (Link.LocalArtifacts).
func (r *Replicator) fanOut(sub lssync.Subscription) {
	defer func() { sub.Close() }()
	feed, _ := r.log.(lssync.ArtifactFeed)
	var added <-chan struct{} // nil without a feed: never ready
	if feed != nil {
		added = feed.ArtifactsAdded()
	}
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-added:
			added = feed.ArtifactsAdded() // before the sessions read the feed: no commit is missed
			for _, s := range r.pushSessions() {
				s.offerArtifacts()
			}
		case ops, ok := <-sub.C():
			if !ok {
				if !sub.Lagged() {
					return // the log was closed
				}
				sub = r.log.Subscribe(r.cfg.LocalQueue)
				r.eachSession((*session).markLagged)
				continue
			}
			r.lag.committed(ops)
			for _, s := range r.pushSessions() {
				s.offer(ops)
			}
		}
	}
}

func (r *Replicator) eachSession(fn func(*session)) {
	r.mu.Lock()
	sessions := make([]*session, 0, len(r.mu.sessions))
	for s := range r.mu.sessions {
		sessions = append(sessions, s)
	}
	r.mu.Unlock()
	for _, s := range sessions {
		fn(s)
	}
}

// goFunc runs fn in a goroutine joined by Stop.
func (r *Replicator) goFunc(fn func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		fn()
	}()
}
