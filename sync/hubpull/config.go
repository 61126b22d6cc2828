package hubpull

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
)

// Defaults of Config (DefaultConfig).
const (
	// DefaultInterval is the Python hub's MEMPALACE_SYNC_INTERVAL
	// default.
	DefaultInterval = 15 * time.Second
	// DefaultTimeout is the Python hub's MEMPALACE_SYNC_HTTP_TIMEOUT
	// default.
	DefaultTimeout = 30 * time.Second
	// DefaultPageLimit is the Python puller's page size (_PULL_BATCH),
	// also the most a Python hub serves per page.
	DefaultPageLimit = 500
	// DefaultMaxResponseBytes bounds one answer. A Python page of 500
	// events at the 256 KiB body limit would exceed it; the puller then
	// asks again for fewer ops (down to one), so only a single op or
	// artifact larger than this is refused.
	DefaultMaxResponseBytes = 64 << 20
	// DefaultParallel is how many peers one round pulls at once.
	DefaultParallel = 4
)

// Config configures a Puller. Start from DefaultConfig and change
// fields; NewPuller calls Validate.
type Config struct {
	// PeersFile is the path of peers.json (the Python format, re-read
	// every round; absent means no peers). Required; the node uses
	// <data dir>/peers.json.
	PeersFile string
	// Interval is the period of the background loop (after one round at
	// Start). Default 15 s; 0 disables the loop (SyncOnce still works),
	// as MEMPALACE_SYNC_INTERVAL=0 does in the Python hub. With Timeout,
	// whichever is longer, it also bounds the time a round spends on one
	// peer (its pull goes on next round).
	Interval time.Duration
	// Timeout bounds one HTTP request to a peer, connection to last byte
	// (MEMPALACE_SYNC_HTTP_TIMEOUT semantics; ParseTimeout reads its
	// value). Default 30 s.
	Timeout time.Duration
	// MaxResponseBytes bounds the body read from one answer; a longer
	// body is refused unread. Default 64 MiB. A page that does not fit is
	// asked again with half the limit.
	MaxResponseBytes int64
	// PageLimit is the limit= of /sync/ops requests, 1..500. Default 500.
	PageLimit int
	// Parallel is how many peers a round pulls concurrently. Default 4;
	// 1 pulls them one after the other in file order, as Python does.
	Parallel int
	// Transport makes the requests; nil means a clone of
	// http.DefaultTransport (system TLS roots, proxies from the
	// environment). Set it for custom TLS.
	Transport http.RoundTripper
	// Logger receives per-peer outcomes; nil discards. Tokens never
	// reach it.
	Logger *slog.Logger
	// Metrics is where the puller registers its collectors; nil
	// registers nothing.
	Metrics prometheus.Registerer
	// Wall stamps last_error_at and last_success_at; nil means
	// hlc.SystemClock{}.
	Wall hlc.WallClock
	// NewTicker makes the loop's schedule; nil means time.NewTicker.
	// Tests inject a ticker they fire by hand.
	NewTicker func(d time.Duration) Ticker
	// AfterRound, when set, is called by the loop after every round with
	// its results (for tests and the node's logs). It must not block.
	AfterRound func([]PeerResult)
	// Integrity, when set, checks pulled ops (which carry no signature):
	// ops of origins that sign are refused, and all ops under
	// UnsignedRefuse; refused ops keep their slots (Checker.Check).
	Integrity Checker
}

// Checker checks pulled ops before they are applied; sync/integrity's
// Integrity provides it (lssync.Integrity's Check). An op that fails
// gets a store.Refusal; kept are the ops to apply now.
type Checker interface {
	Check(ctx context.Context, ops []store.Op, arts []store.Artifact, held map[string]int64, pre []ed25519.PublicKey) (kept []store.Op, heldBack int, err error)
}

// Ticker delivers the pull loop's ticks.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// DefaultConfig returns the defaults for a peers file path.
func DefaultConfig(peersFile string) Config {
	return Config{
		PeersFile:        peersFile,
		Interval:         DefaultInterval,
		Timeout:          DefaultTimeout,
		MaxResponseBytes: DefaultMaxResponseBytes,
		PageLimit:        DefaultPageLimit,
		Parallel:         DefaultParallel,
	}
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.PeersFile == "":
		return fmt.Errorf("%w: PeersFile is required", lssync.ErrInvalidConfig)
	case c.Interval < 0:
		return fmt.Errorf("%w: Interval must not be negative", lssync.ErrInvalidConfig)
	case c.Timeout <= 0:
		return fmt.Errorf("%w: Timeout must be positive", lssync.ErrInvalidConfig)
	case c.MaxResponseBytes < 1<<10:
		return fmt.Errorf("%w: MaxResponseBytes must be at least 1 KiB", lssync.ErrInvalidConfig)
	case c.PageLimit < 1 || c.PageLimit > DefaultPageLimit:
		return fmt.Errorf("%w: PageLimit must be 1..%d", lssync.ErrInvalidConfig, DefaultPageLimit)
	case c.Parallel < 1:
		return fmt.Errorf("%w: Parallel must be positive", lssync.ErrInvalidConfig)
	}
	return nil
}

// systemTicker adapts *time.Ticker.
type systemTicker struct{ t *time.Ticker }

func (s systemTicker) C() <-chan time.Time { return s.t.C }
func (s systemTicker) Stop()               { s.t.Stop() }

func newSystemTicker(d time.Duration) Ticker { return systemTicker{time.NewTicker(d)} }
