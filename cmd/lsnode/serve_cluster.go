package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
	"github.com/lsnode/lsnode/node"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/sync/integrity"
)

// clusterFlags are the replication, gossip and readiness flags of
// `lsnode serve`; each takes its default from its LSNODE_* variable, the
// configuration file and node.DefaultConfig (serveEnv).
type clusterFlags struct {
	clusterID, grpcAddr, grpcAdvertise, gossip, advertise, join, name, keyFile *string
	peers                                                                      *stringList
	maxClockOffset, testClockOffset, httpSyncInterval                          *time.Duration
	readyMaxLagOps, readyMaxQuarantined, readyMinAlivePeers                    *int64
	rejoinInterval                                                             *time.Duration
	unsignedOrigins                                                            *string
	recoverMinPeers                                                            *int
	// httpSyncTimeout is MEMPALACE_SYNC_HTTP_TIMEOUT read as the Python
	// hub reads it; it has no flag, as in the hub.
	httpSyncTimeout time.Duration
}

func addClusterFlags(e *serveEnv) *clusterFlags {
	def := node.DefaultConfig()
	return &clusterFlags{
		clusterID:     e.String("cluster-id", def.ClusterID, "mesh name; peers with another id are refused (env LSNODE_CLUSTER_ID)", "LSNODE_CLUSTER_ID"),
		grpcAddr:      e.String("grpc", "", "replication gRPC listen address host:port; empty runs no replication (env LSNODE_GRPC)", "LSNODE_GRPC"),
		grpcAdvertise: e.String("grpc-advertise", "", "replication address peers dial, when it differs from --grpc (env LSNODE_GRPC_ADVERTISE)", "LSNODE_GRPC_ADVERTISE"),
		gossip:        e.String("gossip", "", "gossip (memberlist) listen address host:port; empty runs no gossip (env LSNODE_GOSSIP)", "LSNODE_GOSSIP"),
		advertise:     e.String("advertise", "", "gossip address other members reach this one at, ip:port (env LSNODE_ADVERTISE)", "LSNODE_ADVERTISE"),
		join:          e.List("join", "comma-separated gossip addresses to join (env LSNODE_JOIN)", "LSNODE_JOIN"),
		name:          e.String("name", "", "unique member name; default the host name (env LSNODE_NAME)", "LSNODE_NAME"),
		keyFile:       e.String("gossip-key-file", "", "file of base64 AES gossip keys, one per line, first primary (env LSNODE_GOSSIP_KEY_FILE)", "LSNODE_GOSSIP_KEY_FILE"),
		maxClockOffset: e.Duration("max-clock-offset", def.Replication.MaxClockOffset,
			"peers further away are reported; remote stamps further ahead do not drag the clock (env LSNODE_MAX_CLOCK_OFFSET)", "LSNODE_MAX_CLOCK_OFFSET"),
		testClockOffset: e.Duration("test-clock-offset", 0,
			"FOR FAULT TESTS ONLY: shift this node's wall clock (and so its HLC stamps) by this much, e.g. 2s or -1s (env LSNODE_TEST_CLOCK_OFFSET)", "LSNODE_TEST_CLOCK_OFFSET"),
		httpSyncInterval: durationFlag(e.fs, "http-sync-interval", e.syncInterval(def.HubPull.Interval),
			"period of the pull from the HTTP peers in <data>/peers.json (Python hubs); 0 disables (env LSNODE_HTTP_SYNC_INTERVAL or MEMPALACE_SYNC_INTERVAL seconds)"),
		readyMaxLagOps:      e.Int64("ready-max-lag-ops", def.HTTP.Readiness.MaxLagOps, "/readyz fails when a peer holds more ops this node lacks; -1 off"),
		readyMaxQuarantined: e.Int64("ready-max-quarantined", def.HTTP.Readiness.MaxQuarantined, "/readyz fails past this many quarantined remote items; -1 off"),
		readyMinAlivePeers:  e.Int64("ready-min-alive-peers", def.HTTP.Readiness.MinAlivePeers, "/readyz fails with fewer connected replication peers"),
		httpSyncTimeout:     pytime.ParseTimeout(e.env.or("", "MEMPALACE_SYNC_HTTP_TIMEOUT"), def.HubPull.Timeout),
		unsignedOrigins: e.String("unsigned-origins", def.Integrity.Policy.String(),
			"accept or refuse ops of origins that do not sign them (Python hubs, older nodes); refused ones are quarantined without consuming their slots; an origin whose key is pinned is always refused unsigned (env LSNODE_UNSIGNED_ORIGINS)",
			"LSNODE_UNSIGNED_ORIGINS"),
		rejoinInterval: e.Duration("rejoin-interval", 0,
			"how often gossip joins again known peers that are not alive, so a long partition heals by itself; 0 means 30s (env LSNODE_REJOIN_INTERVAL)", "LSNODE_REJOIN_INTERVAL"),
		recoverMinPeers: e.Int("recover-min-peers", def.RecoverMinPeers,
			"a node restored with --keep-identity takes local writes again once this many peers have synced with it and it holds their copies of its origin; 0 means the number of --peer addresses, at least 1 (env LSNODE_RECOVER_MIN_PEERS)",
			"LSNODE_RECOVER_MIN_PEERS"),
		peers: e.peers(),
	}
}

// syncInterval is --http-sync-interval's default: LSNODE_HTTP_SYNC_INTERVAL
// (strictly), else MEMPALACE_SYNC_INTERVAL read as the Python hub reads
// it, else the file's, else def.
func (e *serveEnv) syncInterval(def time.Duration) time.Duration {
	const flag = "http-sync-interval"
	under := pytime.ParseInterval(e.env.or("", "MEMPALACE_SYNC_INTERVAL"), e.file.durationOr(flag, def))
	return e.duration(flag, under, "LSNODE_HTTP_SYNC_INTERVAL")
}

// peers defines --peer. Its values start from LSNODE_PEERS, which --peer
// adds to, or else from the file's, which --peer replaces.
func (e *serveEnv) peers() *stringList {
	const flag = "peer"
	l := &stringList{values: e.file.listOr(flag, nil), replace: true}
	if _, v := e.env.first("LSNODE_PEERS"); v != "" {
		l.values, l.replace = splitList(v), false
	}
	e.fs.Var(l, flag, "static replication peer host:port, repeatable (env LSNODE_PEERS, comma-separated)")
	return l
}

// apply copies the flags into a node configuration. An --unsigned-origins
// that is neither accept nor refuse (nor empty: the default) is refused
// here, as a failure (exit 1) like the node's own checks.
func (f *clusterFlags) apply(cfg *node.Config) error {
	if s := *f.unsignedOrigins; s != "" {
		policy, err := integrity.ParseUnsignedPolicy(s)
		if err != nil {
			return fmt.Errorf("--unsigned-origins: want accept or refuse, got %q", s)
		}
		cfg.Integrity.Policy = policy
	}
	cfg.ClusterID = *f.clusterID
	cfg.Replication.Addr, cfg.Replication.Advertise, cfg.Replication.Peers = *f.grpcAddr, *f.grpcAdvertise, f.peers.values
	cfg.Replication.MaxClockOffset = *f.maxClockOffset
	m := &cfg.Membership
	m.BindAddr, m.AdvertiseAddr, m.Name, m.KeyringFile = *f.gossip, *f.advertise, *f.name, *f.keyFile
	m.Join = splitList(*f.join)
	if *f.rejoinInterval != 0 { // 0 keeps gossip's default
		m.RejoinInterval = *f.rejoinInterval
	}
	cfg.HubPull.Interval, cfg.HubPull.Timeout = *f.httpSyncInterval, f.httpSyncTimeout
	cfg.RecoverMinPeers = *f.recoverMinPeers
	cfg.HTTP.Readiness = httpapi.ReadyThresholds{MaxLagOps: *f.readyMaxLagOps, MaxQuarantined: *f.readyMaxQuarantined,
		MinAlivePeers: *f.readyMinAlivePeers}
	if *f.testClockOffset != 0 {
		cfg.Wall = offsetClock{wall: hlc.SystemClock{}, offset: *f.testClockOffset}
	}
	return nil
}

// offsetClock is a wall clock shifted by a fixed offset: the skewed host
// that --test-clock-offset simulates in fault tests.
type offsetClock struct {
	wall   hlc.WallClock
	offset time.Duration
}

// Now returns the wrapped clock's time plus the offset.
func (c offsetClock) Now() time.Time { return c.wall.Now().Add(c.offset) }

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
