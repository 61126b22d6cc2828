package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// Owed returns the events agent still owes a terminal reply to, oldest
// first in HLC order (docs/architecture.md#owed-ness). The answer depends only on the set of
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
	return s.owedPage(ctx, owedSelect{to: a, stream: st, scope: scope}, limit)
}

// owedSelect picks owed events: by addressee (to), by asker (from), or
// both, with an optional stream, an HLC upper bound (before: hlc < it)
// and a read scope.
type owedSelect struct {
	to, from, stream, before string
	scope                    *ReadScope
	// For an asker without an addressee: its events past the owed mark
	// as pendingAsks lists them (a JSON array of rowids), and the rowid
	// up to which the list is complete.
	listed string
	upTo   int64
}

// owedPage returns the events q picks, oldest first in HLC order, at most
// limit (clamped as a list's) and the page size bound.
func (s *Store) owedPage(ctx context.Context, q owedSelect, limit int) ([]Event, error) {
	ids, err := s.owedPageIDs(ctx, q, limit)
	if err != nil {
		return nil, err
	}
	evs, err := s.eventsByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	return evs[:pageFit(evs, s.cfg.MaxPageBytes)], nil
}

// owedPageIDs returns the ids of owedPage's events.
func (s *Store) owedPageIDs(ctx context.Context, q owedSelect, limit int) ([]string, error) {
	if q.to == "" && q.from != "" {
		q.listed, q.upTo = s.pending.of(q.from)
	}
	if q.coveredByScope() {
		// Every event q can pick is in the scope: the unscoped plan, which
		// walks one agent's rows, instead of a condition that gathers the
		// scope's whole mailbox for each query.
		q.scope = nil
	}
	query, args := q.sql()
	rows, err := s.reads.pool().QueryContext(ctx, query+` ORDER BY 2, 3, 4 LIMIT ?`, append(args, clampLimit(limit))...)
	if err != nil {
		return nil, fmt.Errorf("owed page: %w", err)
	}
	ids, err := scanOwedIDs(rows)
	if err != nil {
		return nil, fmt.Errorf("owed page: %w", err)
	}
	return ids, nil
}

// coveredByScope reports whether q picks only events its scope reads:
// events addressed to (to) or written by (from) an agent whose whole
// mailbox the scope reads.
func (q owedSelect) coveredByScope() bool {
	return (q.to != "" && q.scope.HasMailbox(q.to)) || (q.from != "" && q.scope.HasMailbox(q.from))
}

// sql is the query of the events q picks, in one statement (one
// snapshot): the rows written to lsnode_owed, and the same condition
// evaluated on the events past the owed mark (owedlag.go), the arms
// folded by UNION. It selects (id, hlc, origin_replica, origin_seq).
func (q owedSelect) sql() (string, []any) {
	written := `SELECT o.event_id, o.hlc, o.origin_replica, o.origin_seq FROM lsnode_owed o`
	pending := `SELECT e.id, e.hlc, e.origin_replica, e.origin_seq FROM events e`
	var wc, pc []string
	var wargs, pargs []any
	// What finds the events past the mark: for an addressee one range of
	// lsnode_events_to_agent_idx, which holds (to_agent, rowid); for an
	// asker the rowids pendingAsks lists, and the rowids above the list;
	// otherwise the rowid range itself, a few thousand events at most.
	type driver struct {
		cond string
		args []any
	}
	drivers := []driver{{`e.rowid > ` + owedMarkSQL, nil}}
	switch {
	case q.to != "":
		wc, wargs = append(wc, `o.agent = ?`), append(wargs, q.to)
		pending += ` INDEXED BY lsnode_events_to_agent_idx`
		pc, pargs = append(pc, `e.to_agent = ?`), append(pargs, q.to)
	case q.from != "":
		written += ` INDEXED BY lsnode_owed_from_idx`
		if q.listed != "" {
			drivers = []driver{
				{`e.rowid IN (SELECT value FROM json_each(?)) AND e.rowid > ` + owedMarkSQL, []any{q.listed}},
				{`e.rowid > max(?, ` + owedMarkSQL + `)`, []any{q.upTo}},
			}
		}
	}
	for _, f := range []struct{ col, v, op string }{{"from_agent", q.from, "="}, {"stream", q.stream, "="}, {"hlc", q.before, "<"}} {
		if f.v != "" {
			wc, wargs = append(wc, `o.`+f.col+` `+f.op+` ?`), append(wargs, f.v)
			pc, pargs = append(pc, `e.`+f.col+` `+f.op+` ?`), append(pargs, f.v)
		}
	}
	// The owed condition's subqueries last, after the column tests that
	// leave few events.
	pc = append(pc, owedTailCondition)
	if q.scope != nil {
		// The written rows are checked one by one (their event by id); the
		// events past the mark are a few thousand at most, found by their
		// own driver, and checked on their own columns too.
		cond, cargs := q.scope.rowCondition("e.")
		wc, wargs = append(wc, `EXISTS (SELECT 1 FROM events e WHERE e.id = o.event_id AND `+cond+`)`), append(wargs, cargs...)
		pc, pargs = append(pc, cond), append(pargs, cargs...)
	}
	query, args := written+whereClause(wc), wargs
	for _, d := range drivers {
		query += ` UNION ` + pending + whereClause(append([]string{d.cond}, pc...))
		args = append(append(args, d.args...), pargs...)
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
