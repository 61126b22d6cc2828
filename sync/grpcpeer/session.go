package grpcpeer

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
)

// frameStream is the transport of one session: a gRPC stream in
// production (client or server side).
type frameStream interface {
	Send(*pb.Frame) error
	Recv() (*pb.Frame, error)
}

// session runs one Link over one stream. Goroutines: the loop (the
// caller's), a reader, a writer and an applier. The loop owns the Link;
// the reader feeds a bounded inbox (a full inbox stops reading:
// backpressure to the peer); the writer drains the outbox; the applier
// stores the batches the Link queued, in order (session_apply.go), and
// while its queue is full the loop takes no frame. Reader, writer and
// applier exit when the stream's context ends, which the owner causes by
// cancelling it (client) or returning from the handler (server); all are
// registered in the Replicator's WaitGroup so Stop joins them.
type session struct {
	r      *Replicator
	link   *lssync.Link
	dir    string // "outbound" or "inbound"
	addr   string
	stream frameStream
	out    *outbox
	local  chan []store.Op // committed ops to offer for push; bounded
	lists  [][]store.Op    // moreLocal's result, owned by the loop
	lagged atomic.Bool     // local ops were dropped for this session
	kick   chan struct{}
	feed   chan struct{} // the artifact feed grew: push what it added (Link.LocalArtifacts)
	status atomic.Pointer[lssync.LinkStatus]
	order  uint64 // when it was tracked, for Replicator.pushSessions; set under Replicator.mu
}

func (r *Replicator) newSession(dir, addr string, stream frameStream) *session {
	s := &session{
		r:      r,
		link:   lssync.NewLink(r.cfg.Config, r.log, dir == "outbound"),
		dir:    dir,
		addr:   addr,
		stream: stream,
		out:    newOutbox(r.cfg.OutboxBytes),
		local:  make(chan []store.Op, r.cfg.LocalQueue),
		kick:   make(chan struct{}, 1),
		feed:   make(chan struct{}, 1),
	}
	s.status.Store(&lssync.LinkStatus{})
	if r.m != nil {
		s.link.SetObserver(r.m)
	}
	s.link.SetDirect(r.directOrigins)
	if r.cfg.Integrity != nil {
		s.link.SignInWriter()
	}
	return s
}

// offer hands committed ops to the session without blocking; when its
// queue is full they are dropped and the session will ask its peer to pull.
func (s *session) offer(ops []store.Op) {
	select {
	case s.local <- ops:
	default:
		s.markLagged()
	}
}

// moreLocal returns ops and the op lists already waiting in the push
// queue, up to Config.BatchOps ops: a backlog goes out in few frames,
// which the peer applies in few transactions. The lists are shared with
// the other sessions, so they are read, never copied or appended to; the
// returned slice is the session's own, reused by the next call.
func (s *session) moreLocal(ops []store.Op) [][]store.Op {
	s.lists = append(s.lists[:0], ops)
	for n := len(ops); n < s.r.cfg.BatchOps; {
		select {
		case more := <-s.local:
			s.lists = append(s.lists, more)
			n += len(more)
		default:
			return s.lists
		}
	}
	return s.lists
}

// offerArtifacts tells the session that the artifact feed grew, without
// blocking: one signal stands for any number of commits.
func (s *session) offerArtifacts() {
	select {
	case s.feed <- struct{}{}:
	default:
	}
}

func (s *session) markLagged() {
	s.lagged.Store(true)
	s.r.m.dropped()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// run drives the session until ctx ends, the stream fails, or the Link
// returns an error. It returns why the session ended.
func (s *session) run(ctx context.Context) error {
	inbox := make(chan inboxFrame, s.r.cfg.InboxFrames)
	readErr := make(chan error, 1)
	writeErr := make(chan error, 1)
	applier := newApplyQueue(2*s.r.cfg.PullWindow, s.r.log, s.r.m)
	s.link.ApplyBehind()
	s.r.goFunc(func() { s.read(ctx, inbox, readErr) })
	s.r.goFunc(func() { s.write(ctx, writeErr) })
	s.r.goFunc(func() { applier.run(ctx) })
	s.r.m.session(s.dir, 1)
	defer s.r.m.session(s.dir, -1)

	ticker := time.NewTicker(s.r.cfg.TickInterval)
	defer ticker.Stop()
	if err := s.emit(s.link.Open(s.now())); err != nil {
		return err
	}
	for {
		var out []*pb.Frame
		var err error
		frames := inbox
		if applier.full() {
			frames = nil // backpressure: the reader fills the inbox, then stops reading
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err = <-readErr:
			return err
		case err = <-writeErr:
			return err
		case done := <-applier.done:
			out, err = s.link.Stored(ctx, done.job.queued, done.res, done.err, s.now())
		case in := <-frames:
			f := in.f
			s.r.m.frame("received", lssync.FrameKind(f), proto.Size(f))
			s.link.SetPreverified(f.GetBatch(), in.pre)
			follows := s.link.PeerFollows()
			out, err = s.link.Handle(ctx, f, s.now())
			if f.GetHello() != nil || s.link.PeerFollows() != follows {
				s.refresh() // pushSessions picks by these two
			}
		case ops := <-s.local:
			lists := s.moreLocal(ops)
			out, err = s.link.Local(ctx, lists...)
			clear(lists) // the ops are in the frames now
		case <-s.feed:
			out, err = s.link.LocalArtifacts(ctx)
		case <-s.kick:
		case <-ticker.C:
			out, err = s.tick()
		}
		for _, q := range s.link.TakeQueued() {
			applier.put(newApplyJob(q))
		}
		if err == nil && s.lagged.Swap(false) {
			out = append(out, s.link.Lagged(s.now())...)
		}
		if err == nil {
			err = s.emit(out)
		}
		if err != nil {
			return err
		}
	}
}

func (s *session) now() time.Time { return s.r.wall.Now() }

func (s *session) tick() ([]*pb.Frame, error) {
	now := s.now()
	if s.out.stalledSince(now, s.r.cfg.StallTimeout) {
		return nil, fmt.Errorf("%w: nothing sent for %s", ErrStalled, s.r.cfg.StallTimeout)
	}
	out, err := s.link.Tick(now)
	s.refresh()
	return out, err
}

// refresh publishes the link's status for Peers and the lag metric.
func (s *session) refresh() {
	local := s.r.log.VersionVector()
	st := s.link.Status(local)
	s.status.Store(&st)
	if st.Ready {
		secs, known := lagSeconds(st, s.r.wall.Now())
		s.r.m.peerLag(st.PeerReplicaID, st.LagOps, secs, known)
		s.r.refreshOriginLag(local)
	}
}

// emit queues frames for the writer. A push that does not fit is dropped
// and repaired by a round; a stalled peer ends the session.
func (s *session) emit(frames []*pb.Frame) error {
	for _, f := range frames {
		accepted, stalled := s.out.put(f, s.now())
		if stalled {
			return fmt.Errorf("%w: send queue over %d bytes", ErrStalled, 2*s.r.cfg.OutboxBytes)
		}
		if !accepted {
			s.markLagged()
		}
	}
	return nil
}

// inboxFrame is a received frame and, for a batch, the reader's
// verification of its signatures (Integrity.Preverify).
type inboxFrame struct {
	f   *pb.Frame
	pre []ed25519.PublicKey
}

func (s *session) read(ctx context.Context, inbox chan<- inboxFrame, errc chan<- error) {
	for {
		f, err := s.stream.Recv()
		if err != nil {
			errc <- fromStatus(err)
			return
		}
		in := inboxFrame{f: f}
		if b := f.GetBatch(); b != nil && s.r.cfg.Integrity != nil {
			in.pre = s.r.cfg.Integrity.Preverify(b, s.r.log.VersionVector())
		}
		select {
		case inbox <- in:
		case <-ctx.Done():
			return
		}
	}
}

func (s *session) write(ctx context.Context, errc chan<- error) {
	for {
		f, size, ok := s.out.take()
		if !ok {
			select {
			case <-s.out.ready:
				continue
			case <-ctx.Done():
				return
			}
		}
		if b := f.GetBatch(); b != nil && s.r.cfg.Integrity != nil {
			s.r.cfg.Integrity.SignFrame(b, s.r.self)
		}
		if err := s.stream.Send(f); err != nil {
			errc <- fromStatus(err)
			return
		}
		s.out.sent(s.now())
		s.r.m.frame("sent", lssync.FrameKind(f), size)
	}
}

// endReason classifies why a session ended, for PeerStatus.State.
func endReason(err error) string {
	switch {
	case errors.Is(err, ErrRefused), errors.Is(err, lssync.ErrClusterMismatch),
		errors.Is(err, lssync.ErrProtocolVersion), errors.Is(err, lssync.ErrSelfConnection), errors.Is(err, ErrTLS):
		return StateRefused
	default:
		return StateBackoff
	}
}
