package store

import (
	"context"

	"github.com/lsnode/lsnode/store/rules"
)

// Owed returns the events agent still owes a terminal reply to, oldest
// first in HLC order (DESIGN.md §3). The answer depends only on the set of
// ops held, so every converged replica gives the same one.
func (s *Store) Owed(ctx context.Context, agent, stream string, limit int) ([]Event, error) {
	a, err := rules.Routing(agent, "agent", true)
	if err != nil {
		return nil, wrapRule(err)
	}
	st, err := rules.Routing(stream, "stream", false)
	if err != nil {
		return nil, wrapRule(err)
	}
	query := `SELECT ` + prefixed("e.", eventColumns) + ` FROM lsnode_owed o JOIN events e ON e.id = o.event_id
WHERE o.agent = ?`
	args := []any{a}
	if st != "" {
		query += ` AND o.stream = ?`
		args = append(args, st)
	}
	query += ` ORDER BY o.hlc, o.origin_replica, o.origin_seq LIMIT ?`
	evs, err := queryEvents(ctx, s.reads.pool(), query, append(args, clampLimit(limit))...)
	if err != nil {
		return nil, err
	}
	if evs == nil {
		evs = []Event{}
	}
	return evs, nil
}
