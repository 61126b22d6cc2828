package main

import (
	"flag"
	"strings"
	"time"

	"github.com/lsnode/lsnode/node"
)

// clusterFlags are the replication, gossip and readiness flags of
// `lsnode serve`; each falls back to its LSNODE_* variable.
type clusterFlags struct {
	clusterID, grpcAddr, grpcAdvertise, gossip, advertise, join, name, keyFile *string
	peers                                                                      stringList
	maxClockOffset                                                             *time.Duration
	readyMaxLagOps, readyMaxQuarantined, readyMinAlivePeers                    *int64
}

func addClusterFlags(fs *flag.FlagSet) *clusterFlags {
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
		maxClockOffset: fs.Duration("max-clock-offset", envDuration(def.MaxClockOffset, "LSNODE_MAX_CLOCK_OFFSET"),
			"peers further away are reported; remote stamps further ahead do not drag the clock (env LSNODE_MAX_CLOCK_OFFSET)"),
		readyMaxLagOps:      fs.Int64("ready-max-lag-ops", def.Readiness.MaxLagOps, "/readyz fails when a peer holds more ops this node lacks; -1 off"),
		readyMaxQuarantined: fs.Int64("ready-max-quarantined", def.Readiness.MaxQuarantined, "/readyz fails past this many quarantined remote items; -1 off"),
		readyMinAlivePeers:  fs.Int64("ready-min-alive-peers", def.Readiness.MinAlivePeers, "/readyz fails with fewer connected replication peers"),
	}
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
	cfg.Join, cfg.Peers, cfg.MaxClockOffset = splitList(*f.join), []string(f.peers), *f.maxClockOffset
	cfg.Readiness = node.ReadyThresholds{MaxLagOps: *f.readyMaxLagOps, MaxQuarantined: *f.readyMaxQuarantined,
		MinAlivePeers: *f.readyMinAlivePeers}
}

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

// envDuration reads a duration variable, falling back to def when it is
// unset or unparsable.
func envDuration(def time.Duration, names ...string) time.Duration {
	d, err := time.ParseDuration(envOr("", names...))
	if err != nil {
		return def
	}
	return d
}
