package grpcpeer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"

	"github.com/lsnode/lsnode/proto/lsnode/v1/lsnodev1grpc"
)

// outPeer is a configured peer address: one goroutine (dialLoop) keeps a
// session to it open, reconnecting with exponential backoff.
type outPeer struct {
	addr   string
	cancel context.CancelFunc
	done   chan struct{}
	mu     struct {
		sync.Mutex
		sess  *session // nil between sessions
		state string   // StateConnecting, StateBackoff or StateRefused when sess is nil
		err   error    // why the last session ended
	}
}

func newOutPeer(addr string, cancel context.CancelFunc) *outPeer {
	p := &outPeer{addr: addr, cancel: cancel, done: make(chan struct{})}
	p.mu.state = StateConnecting
	return p
}

func (p *outPeer) set(sess *session, state string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mu.sess, p.mu.state = sess, state
	if err != nil {
		p.mu.err = err
	}
}

// dialLoop owns the peer's connection until ctx ends.
func (r *Replicator) dialLoop(ctx context.Context, p *outPeer) {
	defer close(p.done)
	conn, err := grpc.NewClient(p.addr, r.dialOptions()...)
	if err != nil {
		p.set(nil, StateRefused, fmt.Errorf("dial %s: %w", p.addr, err))
		return
	}
	defer conn.Close()
	client := lsnodev1grpc.NewReplicationClient(conn)
	backoff := r.cfg.DialBackoffMin
	for ctx.Err() == nil {
		reachedReady, err := r.runOutbound(ctx, client, p)
		if ctx.Err() != nil {
			return
		}
		state := endReason(err)
		p.set(nil, state, err)
		if state == StateRefused {
			r.logger.Warn("replication peer refused", "peer", p.addr, "err", err)
		} else {
			r.logger.Info("replication session ended", "peer", p.addr, "err", err)
		}
		if reachedReady {
			backoff = r.cfg.DialBackoffMin
		}
		wait := backoff
		if state == StateRefused {
			// A refusal (another cluster, version or self) will not heal
			// by itself soon: retry it ten times less often.
			wait = 10 * r.cfg.DialBackoffMax
		}
		if !sleepCtx(ctx, jittered(wait, rand.Float64())) {
			return
		}
		backoff = min(2*backoff, r.cfg.DialBackoffMax)
	}
}

// runOutbound opens one Session stream and runs it to its end.
func (r *Replicator) runOutbound(ctx context.Context, client lsnodev1grpc.ReplicationClient, p *outPeer) (bool, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := client.Session(sctx)
	if err != nil {
		return false, fmt.Errorf("open session to %s: %w", p.addr, fromStatus(err))
	}
	s := r.newSession("outbound", p.addr, stream)
	p.set(s, StateConnecting, nil)
	r.track(s, true)
	defer r.track(s, false)
	err = s.run(sctx)
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		err = fmt.Errorf("session to %s: %w", p.addr, err)
	}
	return s.link.Ready(), err
}

func (r *Replicator) dialOptions() []grpc.DialOption {
	opts := []grpc.DialOption{
		grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(r.cfg.MaxMessageBytes),
			grpc.MaxCallSendMsgSize(r.cfg.MaxMessageBytes),
		),
		grpc.WithInitialWindowSize(flowWindow),
		grpc.WithInitialConnWindowSize(flowWindow),
		// The connection's own redial backoff follows the dial loop's
		// (gRPC's default grows to 120 s, which would keep a healed
		// partition apart for minutes), and keepalive ends a connection
		// that a partition left silent (no round answered for
		// keepaliveTime+keepaliveTimeout) instead of waiting for TCP.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{BaseDelay: r.cfg.DialBackoffMin, Multiplier: 1.6, Jitter: 0.2,
				MaxDelay: r.cfg.DialBackoffMax},
			MinConnectTimeout: r.cfg.RoundTimeout,
		}),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: keepaliveTime, Timeout: keepaliveTimeout}),
	}
	if len(r.cfg.DialOptions) == 0 {
		return append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	return append(opts, r.cfg.DialOptions...)
}

// keepaliveTime is how long a connection may stay silent before the dialer
// pings it, and keepaliveTimeout how long the ping may go unanswered before
// the connection is closed. A session is never silent for long while the
// peer is reachable (a round every Config.SyncInterval), so pings are sent
// only on a connection that stopped hearing from its peer.
const (
	keepaliveTime    = 5 * time.Second
	keepaliveTimeout = 3 * time.Second
)

// flowWindow is the HTTP/2 flow-control window of replication streams and
// connections. Setting it turns off gRPC's bandwidth-delay probing, which
// otherwise sends a PING pair after received data, roughly doubling the
// bytes of an idle round; 4 MiB keeps a pull window of batches in flight.
const flowWindow = 4 << 20

// jittered spreads a redial wait d over [0.8d, 1.2d) by u in [0, 1), so
// that the peers of a node that went away do not all redial it in the same
// instant, round after round.
func jittered(d time.Duration, u float64) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*u))
}

// sleepCtx waits d or until ctx ends; it reports whether d elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
