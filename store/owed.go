package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/lsnode/lsnode/store/rules"
)

// Owed returns the events agent still owes a terminal reply to, oldest
// first in HLC order (DESIGN.md §3). The answer depends only on the set of
// ops held, so every converged replica gives the same one.
//
// The page's ids come from lsnode_owed alone; the events themselves, which
// never change once stored, come from the read cache when it holds them
// and are read by id otherwise.
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
	query := `SELECT event_id FROM lsnode_owed WHERE agent = ?`
	args := []any{a}
	if st != "" {
		query += ` AND stream = ?`
		args = append(args, st)
	}
	if scope != nil {
		cond, cargs := scope.condition("e.")
		query += ` AND EXISTS (SELECT 1 FROM events e WHERE e.id = lsnode_owed.event_id AND ` + cond + `)`
		args = append(args, cargs...)
	}
	query += ` ORDER BY hlc, origin_replica, origin_seq LIMIT ?`
	ids, err := queryStrings(ctx, s.reads.pool(), query, append(args, clampLimit(limit))...)
	if err != nil {
		return nil, fmt.Errorf("owed page: %w", err)
	}
	evs, err := s.eventsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	return evs[:pageFit(evs, s.cfg.MaxPageBytes)], nil
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

func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
