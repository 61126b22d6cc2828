package lssync

import (
	"fmt"
	"log/slog"
	"time"
)

// ProtocolVersion is the session protocol spoken by this build. A peer with
// another version is refused at the handshake.
const ProtocolVersion = 1

// Config configures a Link: what both ends of a session agree on and the
// bounds of what one end sends. Zero values are not defaults: start from
// DefaultConfig and change fields. A driver (sync/grpcpeer) adds its own
// transport and queue settings around it.
type Config struct {
	// ClusterID names the cluster. Peers with another id are refused at
	// the handshake before any data is exchanged. Required.
	ClusterID string
	// MaxClockOffset is the clock offset beyond which a peer is reported
	// as skewed (log line, Observer, LinkStatus.ClockSkewed). Its ops are
	// still stored. Default 500ms.
	MaxClockOffset time.Duration
	// SyncInterval is the period of the digest rounds a dialer starts on
	// each session; it bounds how long a missed push stays unrepaired.
	// Default 2s. Shorter repairs faster and costs one idle round
	// (DigestSize-bound bytes) per session per interval.
	SyncInterval time.Duration
	// TickInterval is how often sessions check timers (Link.Tick).
	// Default 100ms.
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
	// Logger receives link events (clock offsets); nil discards them.
	Logger *slog.Logger
	// Integrity signs this node's ops when served and verifies received
	// ops against their origins' pinned keys (sync/integrity); nil neither
	// signs nor verifies.
	Integrity Integrity
}

// DefaultConfig returns the defaults for clusterID.
func DefaultConfig(clusterID string) Config {
	return Config{
		ClusterID:      clusterID,
		MaxClockOffset: 500 * time.Millisecond,
		SyncInterval:   2 * time.Second,
		TickInterval:   100 * time.Millisecond,
		RoundTimeout:   10 * time.Second,
		BatchOps:       500,
		BatchBytes:     1 << 20,
		PullWindow:     8,
	}
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.ClusterID == "":
		return fmt.Errorf("%w: ClusterID is required", ErrInvalidConfig)
	case c.MaxClockOffset <= 0, c.SyncInterval <= 0, c.TickInterval <= 0, c.RoundTimeout <= 0:
		return fmt.Errorf("%w: durations must be positive", ErrInvalidConfig)
	case c.BatchOps < 1, c.BatchBytes < 1, c.PullWindow < 1:
		return fmt.Errorf("%w: batch and queue sizes must be positive", ErrInvalidConfig)
	}
	return nil
}
