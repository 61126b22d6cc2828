package node

import (
	"context"
	"net/http"

	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/node/mcp"
	"github.com/lsnode/lsnode/node/membership"
	"github.com/lsnode/lsnode/sync/grpcpeer"
	"github.com/lsnode/lsnode/sync/integrity"
)

// httpOptions are the HTTP surface's configuration and parts for a bind
// on host:port (the port actually bound).
func (n *Node) httpOptions(host string, port int, scheme string) httpapi.Options {
	c := n.cfg
	var integrity httpapi.Integrity // none before the store is open (benchmarks)
	if n.integrity != nil {
		integrity = integrityState{n.integrity}
	}
	var sizes httpapi.LogSizes
	if n.store != nil {
		sizes = n.store
	}
	return httpapi.Options{
		Config:  c.HTTP,
		Version: c.Version, DataDir: c.DataDir, ReadOnly: c.MCP.ReadOnly,
		BindHost: host, Port: port, Scheme: scheme,
		Store: n.store, Auth: auth.NewAuthenticator(c.Auth.Token, n.tokens), Roster: n.liveRoster,
		Replication: meshState{n}, Keyring: meshState{n}, Integrity: integrity, Backups: nodeBackups{n}, Sizes: sizes,
		Drain: n.drain, Logger: n.log, Registry: n.reg, Wall: n.wall,
	}
}

// surfaces builds the HTTP surface of apiOpts and the MCP tools on st,
// mounted at POST /mcp, and returns the root handler. The tools share the
// surface's per-client cap of waits, long-poll cap and write timeout, and
// answer mempalace_mesh_peers with its /sync/peers payload.
func (n *Node) surfaces(apiOpts httpapi.Options, st mcp.Store) http.Handler {
	n.api = httpapi.New(apiOpts)
	tools := mcp.NewHandler(mcp.Options{
		Config: n.cfg.MCP,
		Store:  st,
		Roster: func(ctx context.Context) (any, error) {
			return n.api.PeersPayload(ctx), nil
		},
		Drain:           n.drain,
		MaxWait:         n.cfg.HTTP.MaxLongPoll,
		WriteTimeout:    n.cfg.HTTP.WriteTimeout,
		Waits:           n.api.Waits(),
		Version:         n.cfg.Version,
		Logger:          n.log,
		RequireIdentity: n.tokens != nil,
		Metrics:         n.reg,
	})
	if n.cfg.HTTP.Console {
		n.api.EnableConsole(httpapi.ConsoleOptions{Store: n.store, Tools: tools, IdleTimeout: n.cfg.HTTP.ConsoleIdleTimeout})
	}
	return n.api.Handler(tools)
}

// meshState is what the HTTP routes read of replication and membership,
// looked up at each call: replication starts after the surface is built
// (gossip announces the HTTP address actually bound), before it serves.
type meshState struct{ n *Node }

// ReadyPeers are the replication sessions for /readyz.
func (m meshState) ReadyPeers() []httpapi.ReadyPeer {
	c := m.n.cluster
	if c == nil {
		return nil
	}
	var out []httpapi.ReadyPeer
	for _, p := range c.rep.Peers() {
		out = append(out, httpapi.ReadyPeer{LagOps: p.LagOps,
			Connected: p.State == grpcpeer.StateFollowing || p.State == grpcpeer.StateSyncing})
	}
	return out
}

// CatchUp is the per-origin catch-up progress of the gRPC replicator
// (none on a node without replication).
func (m meshState) CatchUp() []httpapi.OriginProgress {
	c := m.n.cluster
	if c == nil {
		return nil
	}
	return originProgress(c.rep.Origins())
}

func originProgress(rows []grpcpeer.OriginLag) []httpapi.OriginProgress {
	out := make([]httpapi.OriginProgress, len(rows))
	for i, r := range rows {
		out[i] = httpapi.OriginProgress{Origin: r.Origin, Held: r.Held, Target: r.Target, BehindOps: r.Ops(),
			BehindSeconds: r.Seconds, OpsPerSecond: r.Rate}
	}
	return out
}

// KeyOperation runs a gossip keyring operation across the mesh.
func (m meshState) KeyOperation(ctx context.Context, op membership.KeyOp, key string) (membership.KeyReport, error) {
	c := m.n.cluster
	if c == nil || c.members == nil {
		return membership.KeyReport{}, httpapi.ErrNoGossip
	}
	return c.members.KeyOperation(ctx, op, key)
}

// integrityState is the node's origin integrity as /statusz shows it.
type integrityState struct{ in *integrity.Integrity }

func (s integrityState) IntegrityStatus() httpapi.IntegrityStatus {
	c := s.in.Counts()
	return httpapi.IntegrityStatus{KeyFingerprint: s.in.Fingerprint(), UnsignedOrigins: s.in.Policy().String(),
		Verified: c.Verified, Refused: c.Refused, KeyConflicts: c.KeyConflicts, Signed: c.Signed}
}
