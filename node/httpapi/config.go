package httpapi

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node/auth"
)

// Config configures the surface: the settings the node takes from its
// own configuration (node.Config documents each, with its default), the
// bind it made, and the parts the routes read. The node checks the
// settings; New takes them as they are.
type Config struct {
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
	// ExtraAllowedHosts extend the Host pin of a loopback bind.
	ExtraAllowedHosts []string

	SSEMaxClients       int
	SSEHeartbeat        time.Duration
	MaxLongPoll         time.Duration
	WriteTimeout        time.Duration
	ReadHeaderTimeout   time.Duration
	ReadTimeout         time.Duration
	IdleTimeout         time.Duration
	MaxHeaderBytes      int
	MaxStreamsPerClient int
	MaxWaitsPerClient   int
	// Readiness holds the default thresholds of /readyz.
	Readiness ReadyThresholds

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
