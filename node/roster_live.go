package node

import (
	"context"
	"os"

	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/node/membership"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// liveRoster is the roster of a running node: the mesh as membership and
// replication see it.
func (n *Node) liveRoster(context.Context) httpapi.Roster {
	est := &httpapi.Estate{AgentsActive: n.store.ActiveAgents(), AgentsWindow: store.ActiveAgentsWindow}
	est.Members = append(est.Members, n.selfRow())
	est.Members = append(est.Members, n.cluster.memberRows()...)
	if c := n.cluster; c != nil && c.members != nil && len(n.cfg.Membership.Join) > 0 {
		st := c.members.JoinStatus()
		est.Join = &httpapi.JoinStatus{Pending: st.Pending, Seeds: st.Seeds, Attempts: st.Attempts,
			LastError: st.LastError, LastAttempt: st.LastAttempt, NextAttempt: st.NextAttempt}
	}
	peers, profiles := httpPeerStates(n.httpPull)
	r := httpapi.Roster{InProcess: true, Lsnode: est, Peers: peers, Profiles: profiles}
	if n.httpPull != nil {
		r.SyncInterval = n.httpPull.Interval()
	}
	return r
}

func (n *Node) selfRow() httpapi.MemberRow {
	row := httpapi.MemberRow{Name: n.cfg.Membership.Name, ReplicaID: n.store.ReplicaID(), HTTPAddr: n.url, State: "alive",
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
func (c *cluster) memberRows() []httpapi.MemberRow {
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
	var rows []httpapi.MemberRow
	seen := map[string]bool{c.self: true}
	if c.members != nil {
		for _, m := range c.members.Members() {
			if m.Meta.ReplicaID == c.self {
				continue
			}
			row := httpapi.MemberRow{Name: m.Name, ReplicaID: m.Meta.ReplicaID, GossipAddr: m.Addr, GRPCAddr: m.Meta.GRPCAddr,
				HTTPAddr: m.Meta.HTTPAddr, State: string(m.State), Version: m.Meta.Version, Reason: m.Reason}
			if p, ok := byReplica[m.Meta.ReplicaID]; ok {
				withSession(&row, p)
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
		row := httpapi.MemberRow{Name: p.Addr, ReplicaID: p.ReplicaID, GRPCAddr: p.Addr, State: sessionState(p.State)}
		if p.State == grpcpeer.StateRefused {
			row.Reason = p.LastError // e.g. a certificate refused under --tls-ca
		}
		withSession(&row, p)
		rows = append(rows, row)
	}
	return rows
}

func withSession(m *httpapi.MemberRow, p grpcpeer.PeerStatus) {
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
