package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"
)

// AgentInfo is one agent of the roster that the log implies: every
// from_agent, the replicas it wrote through and when it was last seen.
// Unlike the peer list, it shows a hub-and-spoke fleet (many agents, one
// replica) for what it is (RFC 003 §2, docs/architecture.md#rfcs).
type AgentInfo struct {
	// Agent is the from_agent value.
	Agent string
	// Replicas are the origin replicas its events were written through,
	// sorted; "" stands for events without an origin (none after
	// migration).
	Replicas []string
	// Events counts the events it wrote.
	Events int64
	// LastHLC is the greatest HLC stamp among its events, LastSeen that
	// stamp's wall time (UTC, millisecond precision; zero when no event
	// has a valid stamp) and LastCreatedAt that event's created_at.
	LastHLC       string
	LastSeen      time.Time
	LastCreatedAt string
	// Shared is true when it was seen writing through two different
	// replicas within the window of each other (by HLC wall time): the
	// same name is most likely in use on two machines at once, whose
	// "you cannot owe yourself" filters then hide each other's asks (RFC
	// 003 §7.7, docs/architecture.md#rfcs).
	Shared bool
	// ClaimConflicts counts the asks it owes that it claimed from two or
	// more replicas (claims.go): the same name at work on two machines.
	ClaimConflicts int
}

// agentsByHLC walks the whole log in HLC order (rows without a stamp
// first) through the index the replication path keeps anyway, so the
// roster needs no index of its own on the write path.
const agentsByHLC = `SELECT from_agent, origin_replica, coalesce(hlc, ''), created_at
FROM events INDEXED BY events_hlc_idx ORDER BY hlc`

// agentsNewest is agentsByHLC over the newest events only: the index
// walked back from its end, then folded in HLC order.
const agentsNewest = `SELECT * FROM (SELECT from_agent, origin_replica, coalesce(hlc, '') AS stamp, created_at
FROM events INDEXED BY events_hlc_idx ORDER BY hlc DESC LIMIT ?) ORDER BY stamp`

// Agents returns the agent roster derived from the log, sorted by agent
// name. window (>= 0) is how close in time two writes through different
// replicas must be for the agent to be flagged Shared. It reads the whole
// log in one pass, so its cost grows with the log, and counts each
// agent's claim conflicts (ClaimConflictCounts).
func (s *Store) Agents(ctx context.Context, window time.Duration) ([]AgentInfo, error) {
	roster, _, err := s.agents(ctx, window, agentsByHLC)
	return roster, err
}

// RecentAgents is the roster of Agents over the newest n events in HLC
// order, so that its cost is bounded however long the log: the agents
// that wrote none of them are not listed, and each row counts its
// events among them. read is how many events it read (fewer than n: the
// whole log).
func (s *Store) RecentAgents(ctx context.Context, window time.Duration, n int) (roster []AgentInfo, read int, err error) {
	if n <= 0 {
		return nil, 0, invalidf("n must be positive")
	}
	return s.agents(ctx, window, agentsNewest, n)
}

func (s *Store) agents(ctx context.Context, window time.Duration, query string, args ...any) ([]AgentInfo, int, error) {
	if window < 0 {
		return nil, 0, invalidf("window must not be negative")
	}
	rows, err := s.readDB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("agents: %w", err)
	}
	defer rows.Close()
	roster := newAgentRoster(window)
	read := 0
	for rows.Next() {
		var agent, stamp, createdAt string
		var replica sql.NullString
		if err := rows.Scan(&agent, &replica, &stamp, &createdAt); err != nil {
			return nil, 0, fmt.Errorf("agents: %w", err)
		}
		roster.add(agent, replica, stamp, createdAt)
		read++
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("agents: %w", err)
	}
	conflicts, err := s.ClaimConflictCounts(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := roster.list()
	for i := range out {
		out[i].ClaimConflicts = conflicts[out[i].Agent]
	}
	return out, read, nil
}

// agentRoster folds events, taken in HLC order, into AgentInfo rows.
type agentRoster struct {
	windowMS int64
	agents   map[string]*agentFold
}

type agentFold struct {
	info     AgentInfo
	replicas map[string]bool
	// The replica and wall time of the agent's latest stamped event with
	// an origin, for the Shared test.
	lastRep string
	lastMS  int64
}

func newAgentRoster(window time.Duration) *agentRoster {
	return &agentRoster{windowMS: window.Milliseconds(), agents: map[string]*agentFold{}}
}

// add takes the next event in HLC order. Walking one agent's events in
// HLC order, two of them through different replicas at most the window
// apart exist exactly when two adjacent ones differ in replica and are at
// most the window apart: between any qualifying pair some adjacent step
// changes replica, and it is no longer than the pair's span.
func (r *agentRoster) add(agent string, replica sql.NullString, stamp, createdAt string) {
	a := r.agents[agent]
	if a == nil {
		a = &agentFold{info: AgentInfo{Agent: agent}, replicas: map[string]bool{}}
		r.agents[agent] = a
	}
	a.info.Events++
	a.replicas[replica.String] = true
	a.info.LastHLC, a.info.LastCreatedAt = stamp, createdAt // the walk is in HLC order
	if stamp == "" || !replica.Valid {
		return
	}
	ms := stampMS(stamp)
	if a.lastRep != "" && a.lastRep != replica.String && ms-a.lastMS <= r.windowMS {
		a.info.Shared = true
	}
	a.lastRep, a.lastMS = replica.String, ms
}

// list returns the roster sorted by agent name.
func (r *agentRoster) list() []AgentInfo {
	out := make([]AgentInfo, 0, len(r.agents))
	for _, a := range r.agents {
		for rep := range a.replicas {
			a.info.Replicas = append(a.info.Replicas, rep)
		}
		sort.Strings(a.info.Replicas)
		a.info.LastSeen = stampTime(a.info.LastHLC)
		out = append(out, a.info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out
}
