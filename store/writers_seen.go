package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"
)

// sharedNameWindow is how recently another replica must have carried a
// write by the same agent name for the name to be flagged as shared.
const sharedNameWindow = 10 * time.Minute

// writersSeen remembers, per agent name, the newest HLC wall time at which
// each origin carried a write by that name. It is loaded from recent
// events at open and updated at every commit, so the shared-name check of
// an append costs no query.
type writersSeen map[string]map[string]int64

func (ws writersSeen) note(agent, origin string, ms int64) {
	byOrigin := ws[agent]
	if byOrigin == nil {
		byOrigin = map[string]int64{}
		ws[agent] = byOrigin
	}
	if ms > byOrigin[origin] {
		byOrigin[origin] = ms
	}
}

// othersSince lists the origins other than self that carried a write by
// agent at or after sinceMS, and forgets entries older than that.
func (ws writersSeen) othersSince(agent, self string, sinceMS int64) []string {
	var out []string
	for origin, ms := range ws[agent] {
		switch {
		case ms < sinceMS:
			delete(ws[agent], origin)
		case origin != self:
			out = append(out, origin)
		}
	}
	sort.Strings(out)
	return out
}

// stampMS reads the wall milliseconds of an HLC stamp (0 if malformed).
func stampMS(stamp string) int64 {
	if len(stamp) < 13 {
		return 0
	}
	ms, err := strconv.ParseInt(stamp[:13], 10, 64)
	if err != nil {
		return 0
	}
	return ms
}

// loadWritersSeen reads the writers of the last window from the hlc index.
func loadWritersSeen(ctx context.Context, q querier, sinceMS int64) (writersSeen, error) {
	rows, err := q.QueryContext(ctx, `SELECT from_agent, origin_replica, max(hlc) FROM events
WHERE hlc >= ? AND origin_replica IS NOT NULL GROUP BY from_agent, origin_replica`, fmt.Sprintf("%013d", sinceMS))
	if err != nil {
		return nil, fmt.Errorf("load recent writers: %w", err)
	}
	defer rows.Close()
	ws := writersSeen{}
	for rows.Next() {
		var agent, origin, stamp string
		if err := rows.Scan(&agent, &origin, &stamp); err != nil {
			return nil, fmt.Errorf("load recent writers: %w", err)
		}
		ws.note(agent, origin, stampMS(stamp))
	}
	return ws, rows.Err()
}

// sharedName lists the other replicas through which agent wrote within
// the window: the same name on two devices (RFC 003 §7.7,
// docs/architecture.md#rfcs).
func (s *Store) sharedName(agent string) []string {
	since := s.wall.Now().Add(-sharedNameWindow).UnixMilli()
	s.mu.Lock()
	out := s.mu.writers.othersSince(agent, s.replica, since)
	s.mu.Unlock()
	if len(out) > 0 {
		s.metrics.sharedNames.Inc()
	}
	return out
}

// ActiveAgents counts the agent names that wrote (through any replica)
// within the last ten minutes, the shared-name window.
func (s *Store) ActiveAgents() int {
	since := s.wall.Now().Add(-sharedNameWindow).UnixMilli()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for agent := range s.mu.writers {
		s.mu.writers.othersSince(agent, "", since) // prunes old entries
		if len(s.mu.writers[agent]) > 0 {
			n++
		} else {
			delete(s.mu.writers, agent)
		}
	}
	return n
}

// ActiveAgentsWindow is the window ActiveAgents counts over.
const ActiveAgentsWindow = sharedNameWindow
