package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// Owed returns the events agent still owes a terminal reply to, oldest
// first in HLC order (DESIGN.md §3). The answer depends only on the set of
// ops held, so every converged replica gives the same one.
//
// The page's ids come from lsnode_owed and, for the events past the owed
// mark whose rows are not written yet (owedlag.go), from the same
// condition evaluated on the events themselves; one statement reads both,
// in one snapshot, and folds an event found by both (writeOwed). The
// events, which never change once stored, come from the read cache when
// it holds them and are read by id otherwise.
func (s *Store) Owed(ctx context.Context, agent, stream string, limit int) ([]Event, error) {
	return s.OwedIn(ctx, nil, agent, stream, limit)
}

// OwedIn is Owed restricted to the events scope may read (nil: all).
func (s *Store) OwedIn(ctx context.Context, scope *ReadScope, agent, stream string, limit int) ([]Event, error) {
	a, err := rules.Routing(agent, "agent", true)
	if err != nil {
		return nil, wrapRule(err)
	}
	st, err := rules.Routing(stream, "stream", false)
	if err != nil {
		return nil, wrapRule(err)
	}
	written, wargs := owedArm(`SELECT event_id, hlc, origin_replica, origin_seq FROM lsnode_owed o WHERE o.agent = ?`,
		"o.", "e.id = o.event_id", a, st, scope)
	// lsnode_events_to_agent_idx holds (to_agent, rowid): the agent's
	// events past the mark are one range of it.
	pending, pargs := owedArm(`SELECT e.id, e.hlc, e.origin_replica, e.origin_seq FROM events e INDEXED BY lsnode_events_to_agent_idx
WHERE e.to_agent = ? AND e.rowid > `+owedMarkSQL+` AND `+owedTailCondition, "e.", "", a, st, scope)
	query := written + ` UNION ` + pending + ` ORDER BY 2, 3, 4 LIMIT ?`
	rows, err := s.reads.pool().QueryContext(ctx, query, append(append(wargs, pargs...), clampLimit(limit))...)
	if err != nil {
		return nil, fmt.Errorf("owed page: %w", err)
	}
	ids, err := scanOwedIDs(rows)
	if err != nil {
		return nil, fmt.Errorf("owed page: %w", err)
	}
	evs, err := s.eventsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	return evs[:pageFit(evs, s.cfg.MaxPageBytes)], nil
}

// owedArm adds Owed's stream and scope filters to one arm of its query.
// The arm's columns carry prefix; join, when set, relates the arm's row
// to an event e for the scope's condition.
func owedArm(query, prefix, join, agent, stream string, scope *ReadScope) (string, []any) {
	args := []any{agent}
	if stream != "" {
		query += ` AND ` + prefix + `stream = ?`
		args = append(args, stream)
	}
	if scope != nil {
		cond, cargs := scope.condition("e.")
		if join != "" {
			cond = `EXISTS (SELECT 1 FROM events e WHERE ` + join + ` AND ` + cond + `)`
		}
		query += ` AND ` + cond
		args = append(args, cargs...)
	}
	return query, args
}

// scanOwedIDs reads the ids of an owed page (its first column) and closes
// rows.
func scanOwedIDs(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id, stamp, origin string
		var seq int64
		if err := rows.Scan(&id, &stamp, &origin, &seq); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// eventsByID returns the events with the given ids, in that order; each
// must be held. The newest come from the tail cache, older ones read
// before from the event cache, the rest from SQLite (and are cached).
func (s *Store) eventsByID(ctx context.Context, ids []string) ([]Event, error) {
	out := make([]Event, len(ids))
	missing := s.tail.lookup(ids, out)
	n := 0
	for _, idx := range missing {
		if e, ok := s.byID.get(ids[idx]); ok {
			out[idx] = e
			continue
		}
		missing[n] = idx
		n++
	}
	missing = missing[:n]
	if len(missing) == 0 {
		return out, nil
	}
	args := make([]any, len(missing))
	at := make(map[string]int, len(missing))
	for i, idx := range missing {
		args[i] = ids[idx]
		at[ids[idx]] = idx
	}
	evs, err := queryEvents(ctx, s.reads.pool(), `SELECT `+eventColumns+` FROM events WHERE id IN (?`+
		strings.Repeat(",?", len(args)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	if len(evs) != len(missing) {
		return nil, fmt.Errorf("owed page: %d of %d events not found", len(missing)-len(evs), len(missing))
	}
	for _, e := range evs {
		out[at[e.ID]] = e
		s.byID.put(e)
	}
	return out, nil
}
