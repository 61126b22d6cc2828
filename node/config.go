package node

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/hostport"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/node/membership"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/grpcpeer"
	"github.com/lsnode/lsnode/sync/integrity"
)

// Defaults of the Config fields (DefaultConfig).
const (
	DefaultDataDir          = "./lsnode-data"
	DefaultHTTPAddr         = "127.0.0.1:8765"
	DefaultSSEMaxClients    = 8
	DefaultSSEHeartbeat     = 15 * time.Second
	DefaultMaxRequestBytes  = 16 << 20 // the Python hub's _HTTP_MAX_REQUEST_BYTES
	DefaultMaxLongPoll      = 300 * time.Second
	DefaultWriteTimeout     = 60 * time.Second
	DefaultClusterID        = "lsnode"
	DefaultMaxClockOffset   = 500 * time.Millisecond
	DefaultHTTPSyncInterval = 15 * time.Second

	// DefaultReadHeaderTimeout is the Python hub's socket timeout.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading a whole request: a 16 MiB body on
	// a slow link.
	DefaultReadTimeout      = 120 * time.Second
	DefaultIdleTimeout      = 120 * time.Second
	DefaultMaxHeaderBytes   = 64 << 10 // the hub's http.server reads lines of at most 64 KiB
	DefaultStreamsPerClient = 8        // the global default: binding only when --sse-max-clients is raised
	DefaultWaitsPerClient   = 64
)

// Config configures one node. Start from DefaultConfig; New calls Validate.
type Config struct {
	// DataDir holds logstream.sqlite3 and replica.json. Default
	// "./lsnode-data"; created (0700) when missing.
	DataDir string
	// HTTPAddr is the host:port the HTTP surface binds. Default
	// 127.0.0.1:8765; port 0 picks a free port (tests). A non-loopback
	// host needs Token unless AllowInsecureNoToken is set.
	HTTPAddr string
	// Token is the bearer token every route but /healthz requires. ""
	// means no route requires one (as in the Python hub).
	Token string
	// TokensFile is the agent tokens file (README "Agent tokens"): per
	// token, the from_agent names it may write as and what it may read.
	// "" configures none. With a tokens file every route but the health
	// probes needs a token; Token, if set too, keeps full access.
	TokensFile string
	// AllowInsecureNoToken permits a non-loopback bind without Token, for
	// deployments where a trusted fronting layer does access control.
	AllowInsecureNoToken bool
	// ExtraAllowedHosts extends the Host pin of a loopback bind ("host" or
	// "host:port"; a bare host also matches host:<bound port>), for a
	// fronting proxy that forwards the public name.
	ExtraAllowedHosts []string
	// ReadOnly refuses every local write: MCP writers answer -32003. The
	// read routes (/sync/*, SSE, /logstream/events) are unaffected, and
	// replication still applies remote ops, as in the Python hub.
	ReadOnly bool
	// TLSCertFile and TLSKeyFile enable HTTPS (TLS 1.2 or later). Both or
	// neither.
	TLSCertFile string
	TLSKeyFile  string
	// TLSCAFile turns on mutual TLS for replication (gRPC): the node
	// presents TLSCertFile/TLSKeyFile to its peers and accepts only peers
	// whose certificate chains to a CA of this PEM file (peer_tls.go).
	// The pull from peers.json also trusts https peers it signed. Needs
	// both TLS files and GRPCAddr. "" keeps replication plaintext.
	TLSCAFile string
	// SyncFull selects SQLite synchronous=FULL: acknowledged writes survive
	// power loss, at the cost of an fsync per commit. Default NORMAL
	// (survives a process crash).
	SyncFull bool
	// ReplicaID overrides replica.json; "" reads or mints it.
	ReplicaID string
	// ReadCacheBytes is the memory budget of the store's cache of the
	// log's newest events, which answers most lists; 0 means the store's
	// default (32 MiB), a negative value turns the cache off.
	ReadCacheBytes int64
	// CommitLinger is how long the store may hold a small transaction open
	// for more writes (store.Config.CommitLinger): 0 means the store's
	// default (2 ms), a negative value commits at once.
	CommitLinger time.Duration

	// SSEMaxClients caps concurrent /logstream/stream clients; more get
	// 503 with Retry-After: 5. Default 8; 0 refuses every stream.
	SSEMaxClients int
	// SSEHeartbeat is the idle time after which a stream gets a ": ping"
	// comment. Default 15 s (the Python hub's); tests shorten it.
	SSEHeartbeat time.Duration
	// MaxRequestBytes caps a POST /mcp body; larger gets 413 with the
	// JSON-RPC "Request too large" error. Default 16 MiB.
	MaxRequestBytes int64
	// MaxLongPoll caps wait_ms of /logstream/events and timeout_ms of
	// mempalace_event_wait, and bounds the write deadline of POST /mcp.
	// Default 300 s (the hub's clamp of timeout_ms).
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
	// Default 64 KiB.
	MaxHeaderBytes int
	// MaxPageBytes bounds the bodies and metadata of one page of events
	// (event_list, event_wait, event_owed, /logstream/events, an SSE
	// batch); a page cut short resumes after its last event, by cursor or
	// event id. Default store.DefaultMaxPageBytes (8 MiB); at least 1 MiB.
	MaxPageBytes int
	// MaxStreamsPerClient caps the concurrent /logstream/stream
	// connections of one client (clientKey: its named token from the
	// tokens file, else its IP); more get 429 with
	// Retry-After. Default 8, the default of SSEMaxClients, so it binds
	// only when that is raised. 0 means no per-client cap.
	MaxStreamsPerClient int
	// MaxWaitsPerClient caps the concurrent long polls of one client:
	// /logstream/events with wait_ms and the mempalace_event_wait tool;
	// more get 429 with Retry-After. Default 64; 0 means no cap.
	MaxWaitsPerClient int
	// Console serves the web console at /ui/ (docs/operations.md
	// "Console"). Default on.
	Console bool
	// ConsoleIdleTimeout signs out a console session whose user made no
	// request for this long. Default 30 min.
	ConsoleIdleTimeout time.Duration

	// ClusterID names the mesh. Replication and gossip refuse peers with
	// another id before any data crosses. Default "lsnode".
	ClusterID string
	// GRPCAddr is the host:port the replication service binds; "" runs no
	// replication (a single hub-and-spoke node). Port 0 picks a free port.
	GRPCAddr string
	// GRPCAdvertise is the host:port peers dial for replication, announced
	// in gossip metadata. "" derives it from GRPCAddr, with a wildcard
	// host replaced by the gossip advertise host.
	GRPCAdvertise string
	// Peers are static replication peers (host:port of their gRPC
	// service), dialed for the node's whole life. Needs GRPCAddr.
	Peers []string
	// MaxClockOffset is the skew bound: a peer further away is reported
	// and a remote stamp further ahead does not drag the local clock.
	// Default 500 ms.
	MaxClockOffset time.Duration
	// GRPCMaxMessageBytes caps a replication message, both ways. Default
	// 64 MiB; at least MinGRPCMessageBytes (a batch plus the largest
	// artifact). Every node of a mesh should use the same value.
	GRPCMaxMessageBytes int
	// GRPCMaxStreamsPerConn caps the concurrent streams of one inbound
	// replication connection (a session is one stream). Default 16.
	GRPCMaxStreamsPerConn int
	// GRPCMaxSessions caps the inbound replication sessions served at
	// once; one more is refused and its dialer retries. Default 128.
	GRPCMaxSessions int
	// GRPCHandshakeTimeout closes an inbound replication connection that
	// has not finished its setup (TLS, HTTP/2 preface) in time. Default
	// 10 s.
	GRPCHandshakeTimeout time.Duration
	// GossipAddr is the host:port memberlist binds (UDP and TCP); "" runs
	// no gossip. Needs GRPCAddr: members found by gossip are replicated
	// with over gRPC.
	GossipAddr string
	// GossipAdvertise is the ip:port other members reach this one at; ""
	// advertises the bind address.
	GossipAdvertise string
	// Join lists gossip addresses to join at start (and again while they
	// are not alive).
	Join []string
	// Name is this node's unique member name; "" means the host name.
	Name string
	// GossipKeyFile holds the gossip encryption keys, one base64 key per
	// line, the first the primary; "" gossips unencrypted.
	GossipKeyFile string
	// RejoinInterval is how often gossip joins again the known peers that
	// are not alive (membership.Config.RejoinInterval); 0 means its
	// default (30 s). Tests of partitions shorten it.
	RejoinInterval time.Duration
	// HTTPSyncInterval is the period of the pull from the HTTP peers of
	// <data dir>/peers.json (Python hubs); one round also runs at start.
	// 0 disables it. Default 15 s (the Python hub's).
	HTTPSyncInterval time.Duration
	// HTTPSyncTimeout bounds one request of that pull, connection to
	// last byte (the Python hub's MEMPALACE_SYNC_HTTP_TIMEOUT, which the
	// CLI reads). 0 means the puller's default, 30 s.
	HTTPSyncTimeout time.Duration
	// Readiness holds the default thresholds of /readyz.
	Readiness httpapi.ReadyThresholds
	// UnsignedOrigins is the policy for ops of origins that do not sign
	// them (Python hubs, older nodes) and have no pinned key: "accept"
	// (also "") or "refuse" (quarantined without consuming their slots).
	// Ops of an origin whose key is pinned are always refused unsigned.
	UnsignedOrigins string

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

// MinGRPCMessageBytes is the smallest GRPCMaxMessageBytes: a batch (1 MiB)
// plus the largest artifact a node accepts (4 MiB), with room to spare.
const MinGRPCMessageBytes = 8 << 20

// DefaultConfig returns a working single-node configuration on loopback.
func DefaultConfig() Config {
	repl := grpcpeer.DefaultConfig(DefaultClusterID)
	return Config{
		GRPCMaxMessageBytes:   repl.MaxMessageBytes,
		GRPCMaxStreamsPerConn: int(repl.MaxStreamsPerConn),
		GRPCMaxSessions:       repl.MaxInboundSessions,
		GRPCHandshakeTimeout:  repl.HandshakeTimeout,
		DataDir:               DefaultDataDir,
		HTTPAddr:              DefaultHTTPAddr,
		SSEMaxClients:         DefaultSSEMaxClients,
		SSEHeartbeat:          DefaultSSEHeartbeat,
		MaxRequestBytes:       DefaultMaxRequestBytes,
		MaxLongPoll:           DefaultMaxLongPoll,
		WriteTimeout:          DefaultWriteTimeout,
		ReadHeaderTimeout:     DefaultReadHeaderTimeout,
		ReadTimeout:           DefaultReadTimeout,
		IdleTimeout:           DefaultIdleTimeout,
		MaxHeaderBytes:        DefaultMaxHeaderBytes,
		MaxPageBytes:          store.DefaultMaxPageBytes,
		MaxStreamsPerClient:   DefaultStreamsPerClient,
		MaxWaitsPerClient:     DefaultWaitsPerClient,
		Console:               true,
		ConsoleIdleTimeout:    httpapi.DefaultConsoleIdleTimeout,
		Version:               "dev",
		ClusterID:             DefaultClusterID,
		HTTPSyncInterval:      DefaultHTTPSyncInterval,
		MaxClockOffset:        DefaultMaxClockOffset,
		Readiness:             httpapi.DefaultReadyThresholds(),
	}
}

// ErrInsecureBind is returned by Validate for a non-loopback bind with no
// token and no AllowInsecureNoToken. Its text is the Python hub's,
// adapted to lsnode's flags, full stops included.
//
//lint:ignore ST1005 the operator-facing text keeps the hub's sentences.
var ErrInsecureBind = errors.New("a bearer token (--token-file, LSNODE_TOKEN or MEMPALACE_MCP_HTTP_TOKEN) " +
	"is required when binding MCP HTTP to a non-loopback host. Set --allow-insecure-no-token " +
	"(MEMPALACE_MCP_HTTP_ALLOW_INSECURE_NO_TOKEN=1) only when a trusted fronting layer provides access control.")

// Validate reports the first problem of the configuration.
func (c Config) Validate() error {
	if c.DataDir == "" {
		return errors.New("config: DataDir is required")
	}
	httpAddr, err := hostport.Bind(c.HTTPAddr)
	if err != nil {
		return fmt.Errorf("config: HTTPAddr %q: %w", c.HTTPAddr, err)
	}
	if !auth.IsLoopbackHost(httpAddr.Host) && c.Token == "" && c.TokensFile == "" && !c.AllowInsecureNoToken {
		return ErrInsecureBind
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return errors.New("TLS requires both --tls-cert and --tls-key (or the matching env vars)")
	}
	if c.TLSCAFile != "" && (c.TLSCertFile == "" || c.GRPCAddr == "") {
		return errors.New("--tls-ca needs --tls-cert, --tls-key and --grpc: it secures replication with the node's key pair")
	}
	switch {
	case c.SSEMaxClients < 0:
		return errors.New("config: SSEMaxClients must not be negative")
	case c.SSEHeartbeat <= 0:
		return errors.New("config: SSEHeartbeat must be positive")
	case c.MaxRequestBytes <= 0:
		return errors.New("config: MaxRequestBytes must be positive")
	case c.MaxLongPoll <= 0:
		return errors.New("config: MaxLongPoll must be positive")
	case c.WriteTimeout <= 0:
		return errors.New("config: WriteTimeout must be positive")
	case c.ReadHeaderTimeout <= 0 || c.ReadTimeout <= 0 || c.IdleTimeout <= 0:
		return errors.New("--http-read-header-timeout, --http-read-timeout and --http-idle-timeout must be positive")
	case c.MaxHeaderBytes < 4<<10:
		return errors.New("--max-header-bytes must be at least 4096")
	case c.MaxPageBytes < 1<<20:
		return errors.New("--max-page-bytes must be at least 1048576")
	case c.MaxStreamsPerClient < 0 || c.MaxWaitsPerClient < 0:
		return errors.New("--max-streams-per-client and --max-waits-per-client must not be negative")
	case c.Console && c.ConsoleIdleTimeout <= 0:
		return errors.New("--console-idle-timeout must be positive")
	case c.ClusterID == "":
		return errors.New("config: ClusterID is required")
	case c.HTTPSyncInterval < 0:
		return errors.New("config: HTTPSyncInterval must not be negative")
	case c.MaxClockOffset <= 0:
		return errors.New("config: MaxClockOffset must be positive")
	case len(c.Peers) > 0 && c.GRPCAddr == "":
		return errors.New("--peer needs --grpc: replication peers are reached over gRPC")
	case c.GossipAddr != "" && c.GRPCAddr == "":
		return errors.New("--gossip needs --grpc: members found by gossip are replicated with over gRPC")
	case len(c.Join) > 0 && c.GossipAddr == "":
		return errors.New("--join needs --gossip")
	case c.GRPCMaxMessageBytes < MinGRPCMessageBytes:
		return fmt.Errorf("--grpc-max-message-bytes must be at least %d (a batch plus the largest artifact)", MinGRPCMessageBytes)
	case c.GRPCMaxStreamsPerConn < 1 || c.GRPCMaxStreamsPerConn > 1<<16:
		return errors.New("--grpc-max-streams-per-conn must be 1..65536")
	case c.GRPCMaxSessions < 1:
		return errors.New("--grpc-max-sessions must be at least 1")
	case c.GRPCHandshakeTimeout <= 0:
		return errors.New("--grpc-handshake-timeout must be positive")
	case c.RejoinInterval < 0:
		return errors.New("--rejoin-interval must not be negative")
	}
	if c.UnsignedOrigins != "" {
		if _, err := integrity.ParseUnsignedPolicy(c.UnsignedOrigins); err != nil {
			return fmt.Errorf("--unsigned-origins: want accept or refuse, got %q", c.UnsignedOrigins)
		}
	}
	return c.checkAddrs(httpAddr)
}

// CheckFiles reads the files the configuration names that Start loads
// (the HTTPS key pair, the --tls-ca file, the gossip key file), so that a
// caller can refuse a bad one before anything touches the data dir (serve
// does, before it locks the dir). Start reads them again.
func (c Config) CheckFiles() error {
	if _, err := auth.ServerTLS(c.TLSCertFile, c.TLSKeyFile, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	if c.TLSCAFile != "" {
		if _, err := auth.LoadCAPool(c.TLSCAFile); err != nil {
			return err
		}
	}
	if c.GossipAddr != "" && c.GossipKeyFile != "" {
		if _, err := membership.LoadKeyringFile(c.GossipKeyFile); err != nil {
			return err
		}
	}
	return nil
}

// checkAddrs checks the form of the replication and gossip addresses and
// that no two listeners claim one port, so that a bad address is refused
// before the data dir is touched. What only a bind shows (a port in use,
// a host that is not local) still fails Start.
func (c Config) checkAddrs(httpAddr hostport.Addr) error {
	type bind struct {
		flag string
		addr hostport.Addr
	}
	binds := []bind{{"--http", httpAddr}}
	if c.GRPCAddr != "" {
		a, err := hostport.Bind(c.GRPCAddr)
		if err != nil {
			return fmt.Errorf("--grpc %q: %w", c.GRPCAddr, err)
		}
		binds = append(binds, bind{"--grpc", a})
	}
	if c.GRPCAdvertise != "" {
		if c.GRPCAddr == "" {
			return errors.New("--grpc-advertise needs --grpc: it is the replication address peers dial")
		}
		if _, err := hostport.Dial(c.GRPCAdvertise); err != nil {
			return fmt.Errorf("--grpc-advertise %q: %w", c.GRPCAdvertise, err)
		}
	}
	if c.GossipAddr != "" {
		if err := membership.CheckAddrs(c.GossipAddr, c.GossipAdvertise); err != nil {
			return fmt.Errorf("gossip: %w", err)
		}
		a, err := hostport.Bind(c.GossipAddr)
		if err != nil {
			return fmt.Errorf("--gossip %q: %w", c.GossipAddr, err)
		}
		binds = append(binds, bind{"--gossip", a})
	} else if c.GossipAdvertise != "" {
		return errors.New("--advertise needs --gossip: it is the gossip address other members reach")
	}
	for _, p := range c.Peers {
		if _, err := hostport.Dial(p); err != nil {
			return fmt.Errorf("--peer %q: %w", p, err)
		}
	}
	for _, j := range c.Join {
		// A join address may leave out its port (gossip's default).
		if _, _, err := net.SplitHostPort(j); err == nil {
			if _, err := hostport.Dial(j); err != nil {
				return fmt.Errorf("--join %q: %w", j, err)
			}
		}
	}
	for i, a := range binds {
		for _, b := range binds[i+1:] {
			if a.addr.Overlaps(b.addr) {
				return fmt.Errorf("%s and %s both bind port %d", a.flag, b.flag, a.addr.Port)
			}
		}
	}
	return nil
}
