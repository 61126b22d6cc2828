package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// AgentInfo is one agent of the roster that the log implies: every
// from_agent, the replicas it wrote through and when it was last seen.
// Unlike the peer list, it shows a hub-and-spoke fleet (many agents, one
// replica) for what it is (RFC 003 §2).
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
	// 003 §7.7).
	Shared bool
}

// agentReplicaRows aggregates per (agent, replica). SQLite takes the bare
// created_at from the row holding max(hlc), the only min/max aggregate.
const agentReplicaRows = `SELECT from_agent, coalesce(origin_replica, ''), count(*), coalesce(max(hlc), ''), created_at
FROM events GROUP BY from_agent, origin_replica`

// sharedAgents finds agents with two events through different replicas at
// most ? ms apart. Walking each agent's events in HLC order, such a pair
// exists exactly when two adjacent events differ in replica and are at
// most ? ms apart (between any qualifying pair, some adjacent step changes
// replica, and it is no longer than the pair's span). It reads the index
// on events(from_agent, hlc).
const sharedAgents = `SELECT DISTINCT from_agent FROM (
  SELECT from_agent, origin_replica AS rep, hlc,
    lag(origin_replica) OVER w AS prev_rep, lag(hlc) OVER w AS prev_hlc
  FROM events INDEXED BY lsnode_events_from_agent_idx
  WHERE hlc IS NOT NULL AND origin_replica IS NOT NULL
  WINDOW w AS (PARTITION BY from_agent ORDER BY hlc)
) WHERE prev_rep <> rep
  AND CAST(substr(hlc, 1, 13) AS INTEGER) - CAST(substr(prev_hlc, 1, 13) AS INTEGER) <= ?`

// Agents returns the agent roster derived from the log, sorted by agent
// name. window (>= 0) is how close in time two writes through different
// replicas must be for the agent to be flagged Shared. It reads the whole
// events table (through the from_agent index), so its cost grows with
// the log.
func (s *Store) Agents(ctx context.Context, window time.Duration) ([]AgentInfo, error) {
	if window < 0 {
		return nil, invalidf("window must not be negative")
	}
	byAgent, err := s.agentRows(ctx)
	if err != nil {
		return nil, err
	}
	shared, err := s.sharedAgents(ctx, window)
	if err != nil {
		return nil, err
	}
	out := make([]AgentInfo, 0, len(byAgent))
	for _, a := range byAgent {
		sort.Strings(a.Replicas)
		a.Shared = shared[a.Agent]
		if ts, err := hlc.Parse(a.LastHLC); err == nil {
			a.LastSeen = time.UnixMilli(ts.WallMS).UTC()
		}
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out, nil
}

// agentRows folds the per-(agent, replica) aggregates into one AgentInfo
// per agent (Shared and LastSeen left to the caller).
func (s *Store) agentRows(ctx context.Context) (map[string]*AgentInfo, error) {
	rows, err := s.readDB.QueryContext(ctx, agentReplicaRows)
	if err != nil {
		return nil, fmt.Errorf("agents: %w", err)
	}
	defer rows.Close()
	byAgent := map[string]*AgentInfo{}
	for rows.Next() {
		var agent, replica, maxHLC, createdAt string
		var n int64
		if err := rows.Scan(&agent, &replica, &n, &maxHLC, &createdAt); err != nil {
			return nil, fmt.Errorf("agents: %w", err)
		}
		a := byAgent[agent]
		if a == nil {
			a = &AgentInfo{Agent: agent}
			byAgent[agent] = a
		}
		a.Replicas = append(a.Replicas, replica)
		a.Events += n
		if maxHLC > a.LastHLC || a.LastCreatedAt == "" {
			a.LastHLC, a.LastCreatedAt = maxHLC, createdAt
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("agents: %w", err)
	}
	return byAgent, nil
}

// sharedAgents returns the agents flagged Shared for window.
func (s *Store) sharedAgents(ctx context.Context, window time.Duration) (map[string]bool, error) {
	rows, err := s.readDB.QueryContext(ctx, sharedAgents, window.Milliseconds())
	if err != nil {
		return nil, fmt.Errorf("agents: shared: %w", err)
	}
	defer rows.Close()
	shared := map[string]bool{}
	for rows.Next() {
		var agent string
		if err := rows.Scan(&agent); err != nil {
			return nil, fmt.Errorf("agents: shared: %w", err)
		}
		shared[agent] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("agents: shared: %w", err)
	}
	return shared, nil
}
