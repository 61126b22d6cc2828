package grpcpeer

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/lsnode/lsnode/hlc"
	lssync "github.com/lsnode/lsnode/sync"
)

// Config configures a Replicator and the sessions it runs: the core's
// Config, which every session's Link runs with, and the transport and
// queue settings of the driver. Zero values are not defaults: start from
// DefaultConfig and change fields.
type Config struct {
	lssync.Config
	// Addr is the host:port the replication service is served on. The
	// Replicator does not bind it: its owner listens there and serves a
	// gRPC server carrying RegisterGRPC and ServerOptions (the node runs
	// no replication when it is ""). Port 0 picks a free port.
	Addr string
	// Advertise is the host:port peers dial, when it differs from Addr;
	// the owner announces it (the node, in gossip metadata).
	Advertise string
	// Peers are static peers (host:port of their replication service),
	// dialed from Start for the Replicator's whole life, as AddPeer's.
	Peers []string
	// OutboxBytes bounds the frames a session has queued for sending. A
	// pushed frame that does not fit is dropped (the peer is asked to pull
	// it instead); any other frame waits. Default 16 MiB; it must hold a
	// pull answer (PullWindow*BatchBytes).
	OutboxBytes int
	// StallTimeout ends a session whose outbox made no progress for this
	// long (a peer that stopped reading). Default 30s.
	StallTimeout time.Duration
	// LocalQueue is how many committed op lists may wait for one session's
	// push; beyond that the session drops them and asks the peer to pull.
	// Default 256.
	LocalQueue int
	// InboxFrames is how many received frames may wait for one session's
	// loop; a full inbox stops reading from the peer. Default 16.
	InboxFrames int
	// MaxMessageBytes is the gRPC message size limit on both sides.
	// Default 64 MiB; it must exceed BatchBytes and the largest artifact.
	MaxMessageBytes int
	// MaxStreamsPerConn caps the concurrent streams of one inbound
	// connection (a session is one stream). Default 16.
	MaxStreamsPerConn uint32
	// MaxInboundSessions caps the sessions this node serves at once, over
	// all connections; one more is refused (ResourceExhausted) and its
	// dialer retries after its backoff. Default 128.
	MaxInboundSessions int
	// HandshakeTimeout bounds an inbound connection's setup (TLS and the
	// HTTP/2 preface), so that a connection that never speaks is closed.
	// Default 10 s.
	HandshakeTimeout time.Duration
	// DialBackoffMin and DialBackoffMax bound the exponential backoff
	// between attempts to (re)connect a peer, by the dial loop and by the
	// gRPC connection below it. Defaults 100ms and 1s: an unreachable peer
	// costs one connection attempt a second, and a healed partition is
	// redialled within a second. A peer that refused is retried every
	// 10*DialBackoffMax.
	DialBackoffMin time.Duration
	DialBackoffMax time.Duration
	// ProgressInterval is how often a lagging origin's catch-up is logged
	// (origin, held and target seq, rate). Default 5s.
	ProgressInterval time.Duration
	// Wall is the wall clock used to measure peer clock offsets and time
	// the sessions; nil means hlc.SystemClock{}.
	Wall hlc.WallClock
	// Metrics is where the Replicator registers its collectors; nil
	// registers nothing.
	Metrics prometheus.Registerer
	// DialOptions are added to every outbound connection (TLS or mTLS
	// credentials); with none, connections are plaintext.
	DialOptions []grpc.DialOption
}

// DefaultConfig returns the defaults for clusterID.
func DefaultConfig(clusterID string) Config {
	return Config{
		Config:             lssync.DefaultConfig(clusterID),
		OutboxBytes:        16 << 20,
		StallTimeout:       30 * time.Second,
		LocalQueue:         256,
		InboxFrames:        16,
		MaxMessageBytes:    64 << 20,
		MaxStreamsPerConn:  16,
		MaxInboundSessions: 128,
		HandshakeTimeout:   10 * time.Second,
		DialBackoffMin:     100 * time.Millisecond,
		DialBackoffMax:     time.Second,
		ProgressInterval:   5 * time.Second,
	}
}

// Validate reports the first field out of range, the core's first.
func (c Config) Validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	switch {
	case c.StallTimeout <= 0, c.ProgressInterval <= 0, c.HandshakeTimeout <= 0:
		return fmt.Errorf("%w: durations must be positive", lssync.ErrInvalidConfig)
	case c.DialBackoffMin <= 0 || c.DialBackoffMax < c.DialBackoffMin:
		return fmt.Errorf("%w: need 0 < DialBackoffMin <= DialBackoffMax", lssync.ErrInvalidConfig)
	case c.LocalQueue < 1, c.InboxFrames < 1:
		return fmt.Errorf("%w: batch and queue sizes must be positive", lssync.ErrInvalidConfig)
	case c.OutboxBytes < c.PullWindow*c.BatchBytes:
		return fmt.Errorf("%w: OutboxBytes must hold PullWindow*BatchBytes", lssync.ErrInvalidConfig)
	case c.MaxMessageBytes <= c.BatchBytes:
		return fmt.Errorf("%w: MaxMessageBytes must exceed BatchBytes", lssync.ErrInvalidConfig)
	case c.MaxInboundSessions < 1:
		return fmt.Errorf("%w: MaxInboundSessions must be positive", lssync.ErrInvalidConfig)
	case c.MaxStreamsPerConn < 1:
		return fmt.Errorf("%w: MaxStreamsPerConn must be positive", lssync.ErrInvalidConfig)
	}
	return nil
}
