package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/membership"
	"github.com/lsnode/lsnode/proto/lsnode/v1/lsnodev1grpc"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// leaveTimeout bounds the graceful leave broadcast at shutdown.
const leaveTimeout = 3 * time.Second

// cluster is the node's replication and membership: the gRPC replicator
// and its server, and, with gossip, the membership that feeds it peers.
type cluster struct {
	rep     *grpcpeer.Replicator
	grpc    *grpc.Server
	health  *health.Server
	ln      net.Listener
	members *membership.Membership // nil without gossip
	self    string                 // this node's replica id
}

// startCluster starts replication (and gossip) when configured. It runs
// after the HTTP listener is bound, so the announced HTTP address is real.
func (n *Node) startCluster(ctx context.Context) error {
	if n.cfg.Replication.Addr == "" {
		return nil
	}
	c := &cluster{self: n.store.ReplicaID()}
	scfg := n.cfg.replicationConfig()
	scfg.Logger, scfg.Wall, scfg.Metrics, scfg.Integrity = n.log, n.wall, n.reg, n.integrity
	serverOpts, err := n.replicationTLS(&scfg)
	if err != nil {
		return err
	}
	rep, err := grpcpeer.NewReplicator(scfg, lssync.StoreLog(n.store))
	if err != nil {
		return fmt.Errorf("replication: %w", err)
	}
	c.rep = rep
	if c.ln, err = net.Listen("tcp", scfg.Addr); err != nil {
		return fmt.Errorf("listen for replication on %s: %w", scfg.Addr, err)
	}
	c.grpc = grpc.NewServer(append(rep.ServerOptions(), serverOpts...)...)
	rep.RegisterGRPC(c.grpc)
	c.health = health.NewServer()
	c.health.SetServingStatus(lsnodev1grpc.Replication_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(c.grpc, c.health)
	reflection.Register(c.grpc)
	n.goFunc(func() {
		if err := c.grpc.Serve(c.ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			n.fail(fmt.Errorf("grpc server: %w", err))
		}
	})
	if err := rep.Start(ctx); err != nil {
		c.stop(n)
		return fmt.Errorf("replication: %w", err)
	}
	if n.cfg.Membership.BindAddr != "" {
		if err := n.startMembership(c); err != nil {
			c.stop(n)
			return err
		}
	}
	n.cluster = c
	n.log.Info("replication serving", "grpc", c.ln.Addr().String(), "cluster", n.cfg.ClusterID,
		"static_peers", len(scfg.Peers), "gossip", n.cfg.Membership.BindAddr != "", "mutual_tls", n.cfg.Auth.TLSCAFile != "")
	return nil
}

// replicationTLS sets the dial credentials of scfg and returns the server
// options for mutual TLS when --tls-ca is set; without it replication is
// plaintext, with a warning on a non-loopback bind.
func (n *Node) replicationTLS(scfg *grpcpeer.Config) ([]grpc.ServerOption, error) {
	if n.cfg.Auth.TLSCAFile == "" {
		if host, _, _ := net.SplitHostPort(scfg.Addr); !auth.IsLoopbackHost(host) {
			n.log.Warn("replication is not encrypted on a non-loopback address; set --tls-ca with --tls-cert and --tls-key",
				"grpc", scfg.Addr)
		}
		return nil, nil
	}
	pt, err := auth.NewPeerTLS(n.cfg.Auth, n.log, n.reg)
	if err != nil {
		return nil, err
	}
	creds := pt.Credentials()
	scfg.DialOptions = append(scfg.DialOptions, grpc.WithTransportCredentials(creds))
	return []grpc.ServerOption{grpc.Creds(creds)}, nil
}

// startMembership joins the gossip cluster; members found there are
// replicated with.
func (n *Node) startMembership(c *cluster) error {
	mcfg := n.cfg.membershipConfig()
	mcfg.Logger, mcfg.Registerer = n.log, n.reg
	if mcfg.KeyringFile != "" {
		keys, err := membership.LoadKeyringFile(mcfg.KeyringFile)
		if err != nil {
			return err
		}
		// `lsnode keys` rotations are saved back to the file.
		mcfg.Keyring = keys
	}
	mcfg.Meta = membership.Meta{ReplicaID: c.self, ClusterID: n.cfg.ClusterID, HTTPAddr: n.url, Version: n.cfg.Version}
	m, err := membership.Create(mcfg, memberHandler{c: c, log: n})
	if err != nil {
		return fmt.Errorf("gossip: %w", err)
	}
	c.members = m
	meta := mcfg.Meta
	meta.GRPCAddr = n.grpcAdvertise(c, m.LocalNode().Addr)
	if err := m.UpdateMeta(meta); err != nil {
		return fmt.Errorf("gossip metadata: %w", err)
	}
	if len(mcfg.Join) > 0 {
		if joined, err := m.Join(mcfg.Join); err != nil {
			// The rejoin loop keeps trying; a seed that is not up yet is normal.
			n.log.Warn("gossip join incomplete; retrying in the background", "joined", joined, "err", err)
		}
	}
	return nil
}

// grpcAdvertise is the replication address peers dial: the configured
// one, or the bound port on the gossip advertise host when the bind host
// is a wildcard.
func (n *Node) grpcAdvertise(c *cluster, gossipAddr string) string {
	if n.cfg.Replication.Advertise != "" {
		return n.cfg.Replication.Advertise
	}
	host, _, _ := net.SplitHostPort(n.cfg.Replication.Addr)
	port := strconv.Itoa(c.ln.Addr().(*net.TCPAddr).Port)
	switch host {
	case "", "0.0.0.0", "::":
		gh, _, err := net.SplitHostPort(gossipAddr)
		if err == nil {
			host = gh
		}
	}
	return net.JoinHostPort(host, port)
}

// stop leaves the gossip cluster, ends replication sessions and stops the
// gRPC server.
func (c *cluster) stop(n *Node) {
	if c.members != nil {
		if err := c.members.Leave(leaveTimeout); err != nil {
			n.log.Warn("gossip leave", "err", err)
		}
		if err := c.members.Shutdown(); err != nil {
			n.log.Warn("gossip shutdown", "err", err)
		}
	}
	c.health.Shutdown()
	c.rep.Stop()
	c.grpc.Stop()
}

// memberHandler turns membership events into replication peers. It runs
// on membership's own event goroutine; AddPeer and RemovePeer only start
// or stop a dial loop, so it never blocks gossip.
type memberHandler struct {
	c   *cluster
	log *Node
}

// dials reports whether this node opens the session to m: of two members
// the one with the smaller replica id dials, so each pair runs one session.
func (h memberHandler) dials(m membership.Member) bool {
	return m.Meta.GRPCAddr != "" && m.Meta.ReplicaID != "" && h.c.self < m.Meta.ReplicaID
}

func (h memberHandler) PeerUp(m membership.Member) {
	if !h.dials(m) {
		return
	}
	if err := h.c.rep.AddPeer(m.Meta.GRPCAddr); err != nil {
		h.log.log.Warn("replication peer from gossip refused", "member", m.Name, "grpc", m.Meta.GRPCAddr, "err", err)
	}
}

func (h memberHandler) PeerDown(m membership.Member) {
	if h.dials(m) {
		h.c.rep.RemovePeer(m.Meta.GRPCAddr)
	}
}

func (h memberHandler) PeerRefused(m membership.Member, reason string) {
	h.log.log.Warn("gossip member refused", "member", m.Name, "addr", m.Addr, "reason", reason)
}
