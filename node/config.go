package node

import (
	"log/slog"
	"path/filepath"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/node/mcp"
	"github.com/lsnode/lsnode/node/membership"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/grpcpeer"
	"github.com/lsnode/lsnode/sync/hubpull"
	"github.com/lsnode/lsnode/sync/integrity"
)

// Defaults of the node-wide Config fields (DefaultConfig); each part's
// defaults are its package's (DefaultConfig there).
const (
	DefaultDataDir   = "./lsnode-data"
	DefaultClusterID = "lsnode"
)

// MinGRPCMessageBytes is the smallest Replication.MaxMessageBytes: a
// batch (1 MiB) plus the largest artifact a node accepts (4 MiB), with
// room to spare.
const MinGRPCMessageBytes = 8 << 20

// Config configures one node: the node-wide settings, one sub-config per
// part, each the part's own configuration type passed to it whole, and
// the process's plumbing. Start from DefaultConfig, which composes the
// parts' DefaultConfig; New calls Validate, which calls each part's
// Validate and adds the checks that span parts.
//
// The node wires the parts together: in each sub-config it sets the
// fields that join the part to the others, and what the part's own
// documentation says of those fields does not apply here. They are named
// below, per part ("set by the node").
type Config struct {
	// DataDir holds the node's files: the log (logstream.sqlite3,
	// replica.json), node.key, peers.json, gossip's known peers and the
	// lock of `lsnode serve`. Default "./lsnode-data"; created (0700) when
	// missing.
	DataDir string
	// ClusterID names the mesh. Replication and gossip refuse peers with
	// another id before any data crosses. Default "lsnode".
	ClusterID string
	// RecoverMinPeers is how many distinct replication peers a node
	// restored under its own identity must have synced with, each held
	// up to its copy of the node's origin, before it takes local writes
	// again (recovery.go); 0 (the default) means the number of static
	// peers (Replication.Peers), at least 1. It is node-wide: own-origin
	// recovery is the node's, which reads replication's peers and ends
	// the store's recovery, not a part's.
	RecoverMinPeers int

	// Store is the log (store.Config). Set by the node: Dir (DataDir),
	// Wall, Logger, Metrics. Store.ReadOnly would refuse what replication
	// applies too: a read-only node sets MCP.ReadOnly instead. The node
	// refuses a MaxPageBytes below 1 MiB (0 included).
	Store store.Config
	// HTTP is the HTTP surface (httpapi.Config): its address, timeouts,
	// caps, the thresholds of /readyz and the web console. A non-loopback Addr needs
	// Auth.Token or Auth.TokensFile unless Auth.AllowInsecureNoToken.
	HTTP httpapi.Config
	// MCP is the MCP tools of POST /mcp (mcp.Config). Their wait cap and
	// write deadline are HTTP.MaxLongPoll and HTTP.WriteTimeout.
	MCP mcp.Config
	// Auth is the tokens and the TLS files (auth.Config). Auth.TLSCAFile
	// needs both TLS files and Replication.Addr.
	Auth auth.Config
	// Replication is the gRPC replication between nodes
	// (grpcpeer.Config). Replication.Addr "" runs none; Peers and
	// Advertise need it. Set by the node: ClusterID, Logger, Wall,
	// Metrics, Integrity, and DialOptions under Auth.TLSCAFile (mutual
	// TLS). MaxMessageBytes must be at least MinGRPCMessageBytes and
	// MaxStreamsPerConn at most 65536.
	Replication grpcpeer.Config
	// Membership is gossip (membership.Config). Membership.BindAddr ""
	// runs none (the default); it needs Replication.Addr, since members
	// found by gossip are replicated with over gRPC. A wildcard host of
	// Replication.Addr is announced with the gossip advertise host. Set by
	// the node: ClusterID, DataDir, Meta, Logger, Registerer, and Keyring
	// when KeyringFile names a file (`lsnode keys` rotations are saved
	// back to it). RejoinInterval must not be negative.
	Membership membership.Config
	// HubPull is the pull from the HTTP peers of <DataDir>/peers.json
	// (Python hubs; hubpull.Config): one round at start, then every
	// Interval. Interval 0 runs no pull at all. Set by the node:
	// PeersFile, Logger, Metrics, Wall, Integrity, and Transport under
	// Auth.TLSCAFile (https peers the mesh CA signed are trusted).
	HubPull hubpull.Config
	// Integrity is origin integrity (integrity.Config): the node signs
	// its ops with <DataDir>/node.key (minted on first start) and
	// verifies its peers'; Policy is what becomes of ops of origins that
	// do not sign. Set by the node: Self, Key, Keys, Logger, Metrics.
	Integrity integrity.Config

	// Version is reported by /statusz, the sync profile and metrics.
	Version string
	// Logger receives the node's logs; nil discards.
	Logger *slog.Logger
	// Registry receives every collector of the node and its store and is
	// served at /metrics. nil means a fresh registry with the Go and
	// process collectors; pass one to share it or to inspect it in tests.
	Registry *prometheus.Registry
	// Wall is the physical clock (uptime, profile stamps, the store's
	// HLC); nil means hlc.SystemClock{}.
	Wall hlc.WallClock
}

// DefaultConfig returns a working single-node configuration on loopback:
// every part's defaults, no replication, no gossip, the pull from
// peers.json every 15 s.
func DefaultConfig() Config {
	gossip := membership.DefaultConfig("")
	gossip.BindAddr = "" // no gossip unless asked for
	return Config{
		DataDir:     DefaultDataDir,
		ClusterID:   DefaultClusterID,
		Store:       store.DefaultConfig(),
		HTTP:        httpapi.DefaultConfig(),
		MCP:         mcp.DefaultConfig(),
		Auth:        auth.DefaultConfig(),
		Replication: grpcpeer.DefaultConfig(""),
		Membership:  gossip,
		HubPull:     hubpull.DefaultConfig(""),
		Integrity:   integrity.DefaultConfig(),
		Version:     "dev",
	}
}

// storeConfig is the store's configuration with the node's data dir.
func (c Config) storeConfig() store.Config {
	s := c.Store
	s.Dir = c.DataDir
	return s
}

// replicationConfig is replication's configuration with the node's cluster id.
func (c Config) replicationConfig() grpcpeer.Config {
	r := c.Replication
	r.ClusterID = c.ClusterID
	return r
}

// membershipConfig is gossip's configuration with the node's cluster id and
// data dir.
func (c Config) membershipConfig() membership.Config {
	m := c.Membership
	m.ClusterID, m.DataDir = c.ClusterID, c.DataDir
	return m
}

// hubPullConfig is the puller's configuration with the node's peers.json.
func (c Config) hubPullConfig() hubpull.Config {
	h := c.HubPull
	h.PeersFile = filepath.Join(c.DataDir, hubpull.PeersFileName)
	return h
}
