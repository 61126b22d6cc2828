package main

import (
	"flag"
	"strings"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// clusterFlags are the replication, gossip and readiness flags of
// `lsnode serve`; each falls back to its LSNODE_* variable.
type clusterFlags struct {
	clusterID, grpcAddr, grpcAdvertise, gossip, advertise, join, name, keyFile *string
	peers                                                                      stringList
	maxClockOffset, testClockOffset, httpSyncInterval                          *time.Duration
	readyMaxLagOps, readyMaxQuarantined, readyMinAlivePeers                    *int64
	rejoinInterval                                                             *time.Duration
	unsignedOrigins                                                            *string
	recoverMinPeers                                                            *int
	// httpSyncTimeout is MEMPALACE_SYNC_HTTP_TIMEOUT read as the Python
	// hub reads it; it has no flag, as in the hub.
	httpSyncTimeout time.Duration
}

func addClusterFlags(fs *flag.FlagSet, env *serveEnv) *clusterFlags {
	def := node.DefaultConfig()
	f := &clusterFlags{
		clusterID:     fs.String("cluster-id", envOr(def.ClusterID, "LSNODE_CLUSTER_ID"), "mesh name; peers with another id are refused (env LSNODE_CLUSTER_ID)"),
		grpcAddr:      fs.String("grpc", envOr("", "LSNODE_GRPC"), "replication gRPC listen address host:port; empty runs no replication (env LSNODE_GRPC)"),
		grpcAdvertise: fs.String("grpc-advertise", envOr("", "LSNODE_GRPC_ADVERTISE"), "replication address peers dial, when it differs from --grpc (env LSNODE_GRPC_ADVERTISE)"),
		gossip:        fs.String("gossip", envOr("", "LSNODE_GOSSIP"), "gossip (memberlist) listen address host:port; empty runs no gossip (env LSNODE_GOSSIP)"),
		advertise:     fs.String("advertise", envOr("", "LSNODE_ADVERTISE"), "gossip address other members reach this one at, ip:port (env LSNODE_ADVERTISE)"),
		join:          fs.String("join", envOr("", "LSNODE_JOIN"), "comma-separated gossip addresses to join (env LSNODE_JOIN)"),
		name:          fs.String("name", envOr("", "LSNODE_NAME"), "unique member name; default the host name (env LSNODE_NAME)"),
		keyFile:       fs.String("gossip-key-file", envOr("", "LSNODE_GOSSIP_KEY_FILE"), "file of base64 AES gossip keys, one per line, first primary (env LSNODE_GOSSIP_KEY_FILE)"),
		maxClockOffset: durationFlag(fs, "max-clock-offset", env.duration(def.MaxClockOffset, "LSNODE_MAX_CLOCK_OFFSET"),
			"peers further away are reported; remote stamps further ahead do not drag the clock (env LSNODE_MAX_CLOCK_OFFSET)"),
		testClockOffset: durationFlag(fs, "test-clock-offset", env.duration(0, "LSNODE_TEST_CLOCK_OFFSET"),
			"FOR FAULT TESTS ONLY: shift this node's wall clock (and so its HLC stamps) by this much, e.g. 2s or -1s (env LSNODE_TEST_CLOCK_OFFSET)"),
		httpSyncInterval: durationFlag(fs, "http-sync-interval", env.duration(hubpull.ParseInterval(envOr("", "MEMPALACE_SYNC_INTERVAL"), def.HTTPSyncInterval), "LSNODE_HTTP_SYNC_INTERVAL"),
			"period of the pull from the HTTP peers in <data>/peers.json (Python hubs); 0 disables (env LSNODE_HTTP_SYNC_INTERVAL or MEMPALACE_SYNC_INTERVAL seconds)"),
		readyMaxLagOps:      fs.Int64("ready-max-lag-ops", def.Readiness.MaxLagOps, "/readyz fails when a peer holds more ops this node lacks; -1 off"),
		readyMaxQuarantined: fs.Int64("ready-max-quarantined", def.Readiness.MaxQuarantined, "/readyz fails past this many quarantined remote items; -1 off"),
		readyMinAlivePeers:  fs.Int64("ready-min-alive-peers", def.Readiness.MinAlivePeers, "/readyz fails with fewer connected replication peers"),
		httpSyncTimeout:     hubpull.ParseTimeout(envOr("", "MEMPALACE_SYNC_HTTP_TIMEOUT"), hubpull.DefaultTimeout),
	}
	f.unsignedOrigins = fs.String("unsigned-origins", envOr("accept", "LSNODE_UNSIGNED_ORIGINS"),
		"accept or refuse ops of origins that do not sign them (Python hubs, older nodes); refused ones are quarantined without consuming their slots; an origin whose key is pinned is always refused unsigned (env LSNODE_UNSIGNED_ORIGINS)")
	f.rejoinInterval = durationFlag(fs, "rejoin-interval", env.duration(0, "LSNODE_REJOIN_INTERVAL"),
		"how often gossip joins again known peers that are not alive, so a long partition heals by itself; 0 means 30s (env LSNODE_REJOIN_INTERVAL)")
	f.recoverMinPeers = fs.Int("recover-min-peers", env.int(1, "LSNODE_RECOVER_MIN_PEERS"),
		"a node restored with --keep-identity takes local writes again once this many peers have synced with it and it holds their copies of its origin (env LSNODE_RECOVER_MIN_PEERS)")
	for _, p := range splitList(envOr("", "LSNODE_PEERS")) {
		f.peers = append(f.peers, p)
	}
	fs.Var(&f.peers, "peer", "static replication peer host:port, repeatable (env LSNODE_PEERS, comma-separated)")
	return f
}

// apply copies the flags into a node configuration.
func (f *clusterFlags) apply(cfg *node.Config) {
	cfg.ClusterID, cfg.GRPCAddr, cfg.GRPCAdvertise = *f.clusterID, *f.grpcAddr, *f.grpcAdvertise
	cfg.GossipAddr, cfg.GossipAdvertise, cfg.Name, cfg.GossipKeyFile = *f.gossip, *f.advertise, *f.name, *f.keyFile
	cfg.RejoinInterval = *f.rejoinInterval
	cfg.Join, cfg.Peers, cfg.MaxClockOffset = splitList(*f.join), []string(f.peers), *f.maxClockOffset
	cfg.HTTPSyncInterval, cfg.HTTPSyncTimeout = *f.httpSyncInterval, f.httpSyncTimeout
	cfg.UnsignedOrigins, cfg.RecoverMinPeers = *f.unsignedOrigins, *f.recoverMinPeers
	cfg.Readiness = httpapi.ReadyThresholds{MaxLagOps: *f.readyMaxLagOps, MaxQuarantined: *f.readyMaxQuarantined,
		MinAlivePeers: *f.readyMinAlivePeers}
	if *f.testClockOffset != 0 {
		cfg.Wall = offsetClock{wall: hlc.SystemClock{}, offset: *f.testClockOffset}
	}
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
