package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/hostport"
	"github.com/lsnode/lsnode/node/auth"
)

// Defaults of the Config fields (DefaultConfig).
const (
	DefaultAddr          = "127.0.0.1:8765"
	DefaultSSEMaxClients = 8
	DefaultSSEHeartbeat  = 15 * time.Second
	DefaultMaxLongPoll   = 300 * time.Second
	DefaultWriteTimeout  = 60 * time.Second
	// DefaultReadHeaderTimeout is the Python hub's socket timeout.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading a whole request: a 16 MiB body on
	// a slow link.
	DefaultReadTimeout      = 120 * time.Second
	DefaultIdleTimeout      = 120 * time.Second
	DefaultMaxHeaderBytes   = 64 << 10 // the hub's http.server reads lines of at most 64 KiB
	DefaultStreamsPerClient = 8        // the global default: binding only when SSEMaxClients is raised
	DefaultWaitsPerClient   = 64
)

// Config is the surface's listener, timeouts and caps: the settings an
// operator gives (node.Config.HTTP). Start from DefaultConfig; the node
// calls Validate.
type Config struct {
	// Addr is the host:port the node binds for the surface. Default
	// 127.0.0.1:8765; port 0 picks a free port (tests). A non-loopback
	// host needs a token (node/auth's Config) unless it allows none.
	Addr string
	// ExtraAllowedHosts extends the Host pin of a loopback bind ("host" or
	// "host:port"; a bare host also matches host:<bound port>), for a
	// fronting proxy that forwards the public name (policy.go).
	ExtraAllowedHosts []string
	// SSEMaxClients caps concurrent /logstream/stream clients; more get
	// 503 with Retry-After: 5. Default 8; 0 refuses every stream.
	SSEMaxClients int
	// SSEHeartbeat is the idle time after which a stream gets a ": ping"
	// comment. Default 15 s (the Python hub's); tests shorten it.
	SSEHeartbeat time.Duration
	// MaxLongPoll caps wait_ms of /logstream/events and timeout_ms of
	// mempalace_event_wait (the node gives it to node/mcp), and bounds the
	// write deadline of POST /mcp. Default 300 s (the hub's clamp of
	// timeout_ms).
	MaxLongPoll time.Duration
	// WriteTimeout bounds writing a non-streaming response. Default 60 s.
	// SSE is exempt; long polls get MaxLongPoll on top.
	WriteTimeout time.Duration
	// ReadHeaderTimeout bounds reading a request's headers: a client that
	// dribbles them is disconnected. Default 10 s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included. Streams
	// and long polls are responses and are not bounded by it. Default
	// 120 s.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle this long between
	// requests. Default 120 s.
	IdleTimeout time.Duration
	// MaxHeaderBytes caps a request's header block; larger gets 431.
	// Default 64 KiB; at least 4 KiB.
	MaxHeaderBytes int
	// MaxStreamsPerClient caps the concurrent /logstream/stream
	// connections of one client (clientKey: its named token from the
	// tokens file, else its IP); more get 429 with Retry-After. Default 8,
	// the default of SSEMaxClients, so it binds only when that is raised.
	// 0 means no per-client cap.
	MaxStreamsPerClient int
	// MaxWaitsPerClient caps the concurrent long polls of one client:
	// /logstream/events with wait_ms and the mempalace_event_wait tool;
	// more get 429 with Retry-After. Default 64; 0 means no cap.
	MaxWaitsPerClient int
	// Readiness holds the default thresholds of /readyz.
	Readiness ReadyThresholds
	// Console serves the web console at /ui/ (docs/operations.md
	// "Console"); the node mounts it (Server.EnableConsole). Default on.
	Console bool
	// ConsoleIdleTimeout signs out a console session whose user made no
	// request for this long. Default DefaultConsoleIdleTimeout (30 min);
	// it must be positive when Console is on.
	ConsoleIdleTimeout time.Duration
}

// DefaultConfig returns the surface's defaults: loopback, the Python
// hub's caps and timeouts where it has them.
func DefaultConfig() Config {
	return Config{
		Addr:                DefaultAddr,
		SSEMaxClients:       DefaultSSEMaxClients,
		SSEHeartbeat:        DefaultSSEHeartbeat,
		MaxLongPoll:         DefaultMaxLongPoll,
		WriteTimeout:        DefaultWriteTimeout,
		ReadHeaderTimeout:   DefaultReadHeaderTimeout,
		ReadTimeout:         DefaultReadTimeout,
		IdleTimeout:         DefaultIdleTimeout,
		MaxHeaderBytes:      DefaultMaxHeaderBytes,
		MaxStreamsPerClient: DefaultStreamsPerClient,
		MaxWaitsPerClient:   DefaultWaitsPerClient,
		Readiness:           DefaultReadyThresholds(),
		Console:             true,
		ConsoleIdleTimeout:  DefaultConsoleIdleTimeout,
	}
}

// Validate reports the first problem of c: the form of Addr (what only a
// bind shows, a port in use, is left to the bind) and every bound.
func (c Config) Validate() error {
	if _, err := hostport.Bind(c.Addr); err != nil {
		return fmt.Errorf("config: HTTPAddr %q: %w", c.Addr, err)
	}
	switch {
	case c.SSEMaxClients < 0:
		return errors.New("config: SSEMaxClients must not be negative")
	case c.SSEHeartbeat <= 0:
		return errors.New("config: SSEHeartbeat must be positive")
	case c.MaxLongPoll <= 0:
		return errors.New("config: MaxLongPoll must be positive")
	case c.WriteTimeout <= 0:
		return errors.New("config: WriteTimeout must be positive")
	case c.ReadHeaderTimeout <= 0 || c.ReadTimeout <= 0 || c.IdleTimeout <= 0:
		return errors.New("--http-read-header-timeout, --http-read-timeout and --http-idle-timeout must be positive")
	case c.MaxHeaderBytes < 4<<10:
		return errors.New("--max-header-bytes must be at least 4096")
	case c.MaxStreamsPerClient < 0 || c.MaxWaitsPerClient < 0:
		return errors.New("--max-streams-per-client and --max-waits-per-client must not be negative")
	case c.Console && c.ConsoleIdleTimeout <= 0:
		return errors.New("--console-idle-timeout must be positive")
	}
	return nil
}

// Options are what New builds the surface from: the operator's Config,
// the bind the node made, and the parts the routes read. Options.Config
// is checked by the node (Config.Validate); New takes it as it is.
type Options struct {
	Config

	// Version is reported by /statusz and the node profile of /sync/*.
	Version string
	// DataDir is the data directory, hashed into /statusz's path_hash.
	DataDir string
	// ReadOnly is reported by /statusz; the read routes are unaffected.
	ReadOnly bool

	// BindHost is the host the listener bound: a loopback host pins the
	// Host header (policy.go). Port is the port actually bound (an
	// ephemeral bind pins the port used), Scheme "http" or "https".
	BindHost string
	Port     int
	Scheme   string

	// Store is the log the routes read. Required.
	Store Log
	// Auth authenticates requests; nil requires no token.
	Auth *auth.Authenticator
	// Roster is the estate of /sync/peers; nil reports none.
	Roster RosterFunc
	// Replication reports replication sessions and catch-up; nil: none.
	Replication Replication
	// Integrity reports the origin integrity of /statusz; nil: none.
	Integrity Integrity
	// Keyring runs the gossip keyring operations of /lsnode/keys; nil:
	// the node does not gossip.
	Keyring Keyring
	// Backups makes the backups of /lsnode/backup; nil: none.
	Backups Backups
	// Sizes reports the log's sizes for /statusz; nil: not shown.
	Sizes LogSizes
	// Drain is cancelled when shutdown begins: streams and long polls end.
	// nil never drains.
	Drain context.Context
	// Logger receives the surface's logs. Required.
	Logger *slog.Logger
	// Registry receives the surface's collectors and is served at
	// /metrics. Required.
	Registry *prometheus.Registry
	// Wall is the clock of uptime, statistics and profile stamps.
	// Required.
	Wall hlc.WallClock
}
