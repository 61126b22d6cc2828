package httpapi

import (
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// Estate is lsnode's extension of /sync/peers (key "lsnode", which a
// Python hub does not send): every member of the mesh, this node first,
// with replication figures, and how many agents wrote recently.
type Estate struct {
	Members      []MemberRow
	AgentsActive int
	AgentsWindow time.Duration
	// Join is the gossip join through --join; nil without one.
	Join *JoinStatus
}

// JoinStatus is the state of the node's gossip join: pending while a join
// that reached none of its seeds is being retried and no peer is up.
type JoinStatus struct {
	Pending                  bool
	Seeds                    []string
	Attempts                 int
	LastError                string // "" when the latest attempt succeeded
	LastAttempt, NextAttempt time.Time
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

// stampOrNull renders t in RFC 3339 (UTC, milliseconds), the zero time
// as JSON null: the estate's attempts and /statusz's last writes.
func stampOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// nullable maps "" to JSON null.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
