package node

import (
	"context"
	"os"
	"time"

	"github.com/lsnode/lsnode/node/membership"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/store/pyjson"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// Estate is lsnode's extension of /sync/peers (key "lsnode", which a
// Python hub does not send): every member of the mesh, this node first,
// with replication figures, and how many agents wrote recently.
type Estate struct {
	Members      []MemberRow
	AgentsActive int
	AgentsWindow time.Duration
	// Join is the gossip join through --join; nil without one.
	Join *membership.JoinStatus
}

// MemberRow is one member of the mesh as `lsnode peers` shows it.
type MemberRow struct {
	Name, ReplicaID, GossipAddr, GRPCAddr, HTTPAddr, State, Version, Reason string
	Self                                                                    bool
	// Replication figures; Synced is false when there is no session.
	Synced      bool
	LagOps      int64
	LagSeconds  float64
	LagKnown    bool // LagSeconds is measured
	LastSync    time.Time
	ClockOffset time.Duration
}

func (m MemberRow) payload() pyjson.Object {
	var lag, lagSeconds, offset, lastSync any
	if m.Self {
		lag, lagSeconds, offset = int64(0), 0.0, 0.0
	} else if m.Synced {
		lag, offset = m.LagOps, float64(m.ClockOffset.Microseconds())/1000
		if m.LagKnown {
			lagSeconds = m.LagSeconds
		}
	}
	if !m.Self && !m.LastSync.IsZero() { // kept after the session ended (a peer that died)
		lastSync = m.LastSync.UTC().Format(time.RFC3339)
	}
	obj := pyjson.Object{
		{Key: "name", Value: m.Name}, {Key: "replica_id", Value: m.ReplicaID},
		{Key: "gossip_addr", Value: m.GossipAddr}, {Key: "grpc_addr", Value: m.GRPCAddr},
		{Key: "http_addr", Value: m.HTTPAddr}, {Key: "state", Value: m.State}, {Key: "self", Value: m.Self},
		{Key: "lag_ops", Value: lag}, {Key: "lag_seconds", Value: lagSeconds}, {Key: "last_sync", Value: lastSync},
		{Key: "clock_offset_ms", Value: offset}, {Key: "version", Value: m.Version},
	}
	if m.Reason != "" {
		obj = append(obj, pyjson.Member{Key: "reason", Value: m.Reason})
	}
	return obj
}

func (e *Estate) payload() pyjson.Object {
	rows := make([]any, len(e.Members))
	for i, m := range e.Members {
		rows[i] = m.payload()
	}
	obj := pyjson.Object{
		{Key: "members", Value: rows},
		{Key: "agents_active", Value: e.AgentsActive},
		{Key: "agents_window_s", Value: e.AgentsWindow.Seconds()},
	}
	if j := e.Join; j != nil {
		seeds := make([]any, len(j.Seeds))
		for i, s := range j.Seeds {
			seeds[i] = s
		}
		obj = append(obj, pyjson.Member{Key: "join", Value: pyjson.Object{
			{Key: "pending", Value: j.Pending}, {Key: "seeds", Value: seeds}, {Key: "attempts", Value: j.Attempts},
			{Key: "last_error", Value: nullable(j.LastError)}, {Key: "last_attempt", Value: stampOrNull(j.LastAttempt)},
			{Key: "next_attempt", Value: stampOrNull(j.NextAttempt)},
		}})
	}
	return obj
}

// stampOrNull renders t in RFC 3339 with milliseconds, the zero time as
// null.
func stampOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// liveRoster is the roster of a running node: the mesh as membership and
// replication see it.
func (n *Node) liveRoster(context.Context) Roster {
	est := &Estate{AgentsActive: n.store.ActiveAgents(), AgentsWindow: store.ActiveAgentsWindow}
	est.Members = append(est.Members, n.selfRow())
	est.Members = append(est.Members, n.cluster.memberRows()...)
	if c := n.cluster; c != nil && c.members != nil && len(n.cfg.Join) > 0 {
		st := c.members.JoinStatus()
		est.Join = &st
	}
	peers, profiles := httpPeerStates(n.httpPull)
	r := Roster{InProcess: true, Lsnode: est, Peers: peers, Profiles: profiles}
	if n.httpPull != nil {
		r.SyncInterval = n.httpPull.Interval()
	}
	return r
}

func (n *Node) selfRow() MemberRow {
	row := MemberRow{Name: n.cfg.Name, ReplicaID: n.store.ReplicaID(), HTTPAddr: n.url, State: "alive",
		Version: n.cfg.Version, Self: true}
	if row.Name == "" {
		row.Name, _ = os.Hostname()
	}
	if c := n.cluster; c != nil {
		row.GRPCAddr = c.ln.Addr().String()
		if c.members != nil {
			local := c.members.LocalNode()
			row.Name, row.GossipAddr, row.GRPCAddr = local.Name, local.Addr, local.Meta.GRPCAddr
		}
	}
	return row
}

// memberRows joins gossip members with replication sessions (by replica
// id); static peers that gossip does not know are listed by address.
func (c *cluster) memberRows() []MemberRow {
	if c == nil {
		return nil
	}
	byReplica := map[string]grpcpeer.PeerStatus{}
	var static []grpcpeer.PeerStatus
	for _, p := range c.rep.Peers() {
		if p.ReplicaID != "" {
			if prev, ok := byReplica[p.ReplicaID]; !ok || p.LastSync.After(prev.LastSync) {
				byReplica[p.ReplicaID] = p
			}
		} else {
			static = append(static, p)
		}
	}
	var rows []MemberRow
	seen := map[string]bool{c.self: true}
	if c.members != nil {
		for _, m := range c.members.Members() {
			if m.Meta.ReplicaID == c.self {
				continue
			}
			row := MemberRow{Name: m.Name, ReplicaID: m.Meta.ReplicaID, GossipAddr: m.Addr, GRPCAddr: m.Meta.GRPCAddr,
				HTTPAddr: m.Meta.HTTPAddr, State: string(m.State), Version: m.Meta.Version, Reason: m.Reason}
			if p, ok := byReplica[m.Meta.ReplicaID]; ok {
				row.withSession(p)
			}
			if m.Meta.ReplicaID != "" {
				row.LastSync = c.rep.LastSync(m.Meta.ReplicaID)
			}
			seen[m.Meta.ReplicaID] = true
			rows = append(rows, row)
		}
	}
	for id, p := range byReplica {
		if !seen[id] {
			static = append(static, p)
		}
	}
	for _, p := range static {
		row := MemberRow{Name: p.Addr, ReplicaID: p.ReplicaID, GRPCAddr: p.Addr, State: sessionState(p.State)}
		if p.State == grpcpeer.StateRefused {
			row.Reason = p.LastError // e.g. a certificate refused under --tls-ca
		}
		row.withSession(p)
		rows = append(rows, row)
	}
	return rows
}

func (m *MemberRow) withSession(p grpcpeer.PeerStatus) {
	m.Synced = p.ReplicaID != ""
	m.LagOps, m.LastSync, m.ClockOffset = p.LagOps, p.LastSync, p.ClockOffset
	m.LagSeconds, m.LagKnown = p.LagSeconds, p.LagKnown
}

// sessionState maps a replication session state to the roster's states
// for a peer gossip does not know (a static --peer).
func sessionState(s string) string {
	switch s {
	case grpcpeer.StateFollowing, grpcpeer.StateSyncing:
		return string(membership.StateAlive)
	case grpcpeer.StateRefused:
		return "refused"
	case grpcpeer.StateConnecting:
		return string(membership.StateSuspect)
	}
	return string(membership.StateDead)
}

// replicationPeers is what /readyz reads: lag and whether each session is
// up.
func (c *cluster) replicationPeers() []readyPeer {
	if c == nil {
		return nil
	}
	var out []readyPeer
	for _, p := range c.rep.Peers() {
		out = append(out, readyPeer{LagOps: p.LagOps,
			Connected: p.State == grpcpeer.StateFollowing || p.State == grpcpeer.StateSyncing})
	}
	return out
}

// readyPeer is one replication session as readiness sees it.
type readyPeer struct {
	LagOps    int64
	Connected bool
}
