package lssync

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/lsnode/lsnode/hlc"
)

// ProtocolVersion is the session protocol spoken by this build. A peer with
// another version is refused at the handshake.
const ProtocolVersion = 1

// Config configures a Replicator and the sessions it runs. Zero values are
// not defaults: start from DefaultConfig and change fields.
type Config struct {
	// ClusterID names the cluster. Peers with another id are refused at
	// the handshake before any data is exchanged. Required.
	ClusterID string
	// MaxClockOffset is the clock offset beyond which a peer is reported
	// as skewed (log line, metric, PeerStatus.ClockSkewed). Its ops are
	// still stored. Default 500ms.
	MaxClockOffset time.Duration
	// SyncInterval is the period of the digest rounds a dialer starts on
	// each session; it bounds how long a missed push stays unrepaired.
	// Default 2s. Shorter repairs faster and costs one idle round
	// (DigestSize-bound bytes) per session per interval.
	SyncInterval time.Duration
	// TickInterval is how often sessions check timers. Default 100ms.
	TickInterval time.Duration
	// RoundTimeout abandons a handshake, round or pull that made no
	// progress for this long; rounds and pulls are then retried. Default 10s.
	RoundTimeout time.Duration
	// BatchOps and BatchBytes bound one Batch frame (ops plus the
	// artifacts they name; a single op larger than BatchBytes still goes
	// alone). Defaults 500 ops, 1 MiB. A batch is applied in one
	// transaction, so larger batches mean fewer, longer transactions.
	BatchOps   int
	BatchBytes int
	// PullWindow is how many batches one Pull may answer before the puller
	// asks again. Default 8: with fewer, a node catching up waits for
	// batches between transactions (4 gave a 1M-event catch-up 3 % less
	// and 11 MiB less peak memory). It bounds what one session buffers for a
	// peer: about PullWindow*BatchBytes. A puller asks for the next window
	// when the current one has arrived and the one before it is stored,
	// so it holds at most two windows not yet stored, and its session
	// queues at most 2*PullWindow batches for the store.
	PullWindow int
	// OutboxBytes bounds the frames a session has queued for sending. A
	// pushed frame that does not fit is dropped (the peer is asked to pull
	// it instead); any other frame waits. Default 16 MiB.
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
	// Logger receives session events; nil discards them.
	Logger *slog.Logger
	// Wall is the wall clock used to measure peer clock offsets and time
	// the sessions; nil means hlc.SystemClock{}.
	Wall hlc.WallClock
	// Metrics is where the Replicator registers its collectors; nil
	// registers nothing.
	Metrics prometheus.Registerer
	// DialOptions are added to every outbound connection (TLS or mTLS
	// credentials); with none, connections are plaintext.
	DialOptions []grpc.DialOption
	// Integrity signs this node's ops when served and verifies received
	// ops against their origins' pinned keys (sync/integrity); nil neither
	// signs nor verifies.
	Integrity Integrity
}

// DefaultConfig returns the defaults for clusterID.
func DefaultConfig(clusterID string) Config {
	return Config{
		ClusterID:          clusterID,
		MaxClockOffset:     500 * time.Millisecond,
		SyncInterval:       2 * time.Second,
		TickInterval:       100 * time.Millisecond,
		RoundTimeout:       10 * time.Second,
		BatchOps:           500,
		BatchBytes:         1 << 20,
		PullWindow:         8,
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

// Validate reports the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.ClusterID == "":
		return fmt.Errorf("%w: ClusterID is required", ErrInvalidConfig)
	case c.MaxClockOffset <= 0, c.SyncInterval <= 0, c.TickInterval <= 0,
		c.RoundTimeout <= 0, c.StallTimeout <= 0, c.ProgressInterval <= 0, c.HandshakeTimeout <= 0:
		return fmt.Errorf("%w: durations must be positive", ErrInvalidConfig)
	case c.DialBackoffMin <= 0 || c.DialBackoffMax < c.DialBackoffMin:
		return fmt.Errorf("%w: need 0 < DialBackoffMin <= DialBackoffMax", ErrInvalidConfig)
	case c.BatchOps < 1, c.BatchBytes < 1, c.PullWindow < 1, c.LocalQueue < 1, c.InboxFrames < 1:
		return fmt.Errorf("%w: batch and queue sizes must be positive", ErrInvalidConfig)
	case c.OutboxBytes < c.PullWindow*c.BatchBytes:
		return fmt.Errorf("%w: OutboxBytes must hold PullWindow*BatchBytes", ErrInvalidConfig)
	case c.MaxMessageBytes <= c.BatchBytes:
		return fmt.Errorf("%w: MaxMessageBytes must exceed BatchBytes", ErrInvalidConfig)
	case c.MaxInboundSessions < 1:
		return fmt.Errorf("%w: MaxInboundSessions must be positive", ErrInvalidConfig)
	case c.MaxStreamsPerConn < 1:
		return fmt.Errorf("%w: MaxStreamsPerConn must be positive", ErrInvalidConfig)
	}
	return nil
}
