package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// List returns one page of events matching f, and a portable cursor that
// resumes after it on any replica.
func (s *Store) List(ctx context.Context, f Filter) (ListResult, error) {
	c, err := compileFilter(f)
	if err != nil {
		return ListResult{}, err
	}
	return s.list(ctx, c)
}

func (s *Store) list(ctx context.Context, c *compiled) (ListResult, error) {
	if evs, cursor, ok := s.tail.list(c); ok {
		evs = previewed(c, evs)
		if pageFit(evs, s.cfg.MaxPageBytes) == len(evs) {
			return ListResult{Events: evs, Cursor: cursor}, nil
		}
		// A page beyond the size bound is cut where its cursor is built.
	}
	return s.listSQL(ctx, c)
}

// listSQL answers a filter from the database.
func (s *Store) listSQL(ctx context.Context, c *compiled) (ListResult, error) {
	// The committed vector is read before the snapshot: anything it covers
	// is in the snapshot, so a cursor built from it never skips an event.
	before := s.VersionVector()
	rtx, err := s.readDB.BeginTx(ctx, nil)
	if err != nil {
		return ListResult{}, fmt.Errorf("begin read: %w", err)
	}
	defer rtx.Rollback() //nolint:errcheck // read-only transaction
	tx := s.reads.in(rtx)
	where, args := append([]string(nil), c.where...), append([]any(nil), c.args...)
	if c.since != "" {
		seq, err := anchorSeq(ctx, tx, c.since, c.sinceName, ErrCursorNotHeld)
		if err != nil {
			return ListResult{}, err
		}
		where, args = append(where, "rowid > ?"), append(args, seq)
	}
	if c.before != "" {
		seq, err := anchorSeq(ctx, tx, c.before, "before_event_id", ErrNotFound)
		if err != nil {
			return ListResult{}, err
		}
		where, args = append(where, "rowid < ?"), append(args, seq)
	}
	if c.cursor != nil {
		start, done, err := firstUncovered(ctx, tx, c.cursor, before)
		if err != nil {
			return ListResult{}, err
		}
		if done {
			return ListResult{Events: []Event{}, Cursor: EncodeCursor(mergeVV(c.cursor, before))}, nil
		}
		where = append(where, "rowid >= ?", `origin_seq > coalesce(json_extract(?, '$."' || origin_replica || '"'), 0)`)
		args = append(args, start, cursorJSON(c.cursor))
	}
	dir := "ASC"
	if c.order == "desc" {
		dir = "DESC"
	}
	query, args := pageQuery(where, args, c.to, dir, c.limit)
	evs, err := queryEvents(ctx, tx, query, args...)
	if err != nil {
		return ListResult{}, err
	}
	evs = previewed(c, evs)
	full, cut := len(evs) >= c.limit, false
	if n := pageFit(evs, s.cfg.MaxPageBytes); n < len(evs) {
		evs, full, cut = evs[:n], true, true // more may follow: resume after the last event kept
	}
	cursor, err := s.nextCursor(ctx, tx, c, before, evs, full)
	if err != nil {
		return ListResult{}, err
	}
	if evs == nil {
		evs = []Event{}
	}
	return ListResult{Events: evs, Cursor: cursor, Cut: cut}, nil
}

// previewed cuts the bodies of a page in preview mode.
func previewed(c *compiled, evs []Event) []Event {
	if c.prev {
		for i := range evs {
			evs[i] = preview(evs[i])
		}
	}
	return evs
}

// pageQuery selects one page in rowid order. A to_agent filter (X or
// '*') is two index range scans merged, each already in rowid order and
// cut at the limit, so a page costs the page, not every event addressed
// to X or to everyone (which an OR over the to_agent index would read and
// sort).
func pageQuery(where []string, args []any, to, dir string, limit int) (string, []any) {
	tail := ` ORDER BY rowid ` + dir + ` LIMIT ?`
	switch to {
	case "":
		return `SELECT ` + eventColumns + ` FROM events` + whereClause(where) + tail, append(args, limit)
	case "*":
		return `SELECT ` + eventColumns + ` FROM events` + whereClause(append(where, "to_agent = '*'")) + tail,
			append(args, limit)
	}
	// The arms select rowids only (a covering scan of the to_agent index
	// when there is no other filter); the page's rows are read once, by
	// rowid, after the merge.
	arm := func(cond string) string {
		return `SELECT * FROM (SELECT rowid FROM events` + whereClause(append(slices.Clone(where), cond)) + tail + `)`
	}
	query := `SELECT ` + eventColumns + ` FROM events WHERE rowid IN (` + arm("to_agent = ?") + ` UNION ALL ` +
		arm("to_agent = '*'") + ` ORDER BY 1 ` + dir + ` LIMIT ?) ORDER BY rowid ` + dir
	out := make([]any, 0, 2*len(args)+4)
	out = append(append(append(out, args...), to, limit), args...)
	return query, append(out, limit, limit)
}

// anchorSeq resolves an event id to its local seq.
func anchorSeq(ctx context.Context, q querier, id, field string, kind error) (int64, error) {
	var seq int64
	err := q.QueryRowContext(ctx, `SELECT rowid FROM events WHERE id = ?`, id).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		msg := rules.CursorNotFound(field, id)
		if kind == ErrCursorNotHeld {
			msg += " on this replica (it may not have replicated here yet: retry, or resume with the portable cursor)"
		}
		return 0, &ValidationError{Msg: msg, Kind: kind}
	}
	if err != nil {
		return 0, fmt.Errorf("resolve %s: %w", field, err)
	}
	return seq, nil
}

// firstUncovered finds the smallest local seq holding an event the cursor
// does not cover. done reports that the cursor covers everything held.
func firstUncovered(ctx context.Context, q querier, cursor, held map[string]int64) (int64, bool, error) {
	start := int64(-1)
	for origin, top := range held {
		if cursor[origin] >= top {
			continue
		}
		var seq int64
		err := q.QueryRowContext(ctx, `SELECT rowid FROM events WHERE origin_replica = ? AND origin_seq > ? ORDER BY origin_seq LIMIT 1`,
			origin, cursor[origin]).Scan(&seq)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return 0, false, fmt.Errorf("locate cursor: %w", err)
		}
		if start < 0 || seq < start {
			start = seq
		}
	}
	return start, start < 0, nil
}

// nextCursor builds the cursor that resumes after a page. A page that
// reached the end of what was held covers everything held; a full
// ascending page (at the limit, or cut at the size bound) covers
// everything up to its last event.
func (s *Store) nextCursor(ctx context.Context, q querier, c *compiled, before map[string]int64, evs []Event, full bool) (string, error) {
	base := c.cursor
	if base == nil {
		base = map[string]int64{}
	}
	seen := map[string]int64{}
	for _, e := range evs {
		if e.OriginSeq > seen[e.OriginReplica] {
			seen[e.OriginReplica] = e.OriginSeq
		}
	}
	if !full || c.order == "desc" {
		return EncodeCursor(mergeVV(mergeVV(base, before), seen)), nil
	}
	upTo, err := vvAt(ctx, q, before, evs[len(evs)-1].Seq)
	if err != nil {
		return "", err
	}
	return EncodeCursor(mergeVV(mergeVV(base, upTo), seen)), nil
}

// vvAt is the version vector of the events with local seq <= seq. Each
// origin's events arrive in origin order, so the newest one at or below
// seq is found by walking back from the origin's top.
func vvAt(ctx context.Context, q querier, origins map[string]int64, seq int64) (map[string]int64, error) {
	out := make(map[string]int64, len(origins))
	for origin := range origins {
		var top sql.NullInt64
		err := q.QueryRowContext(ctx, `SELECT origin_seq FROM events WHERE origin_replica = ? AND rowid <= ? ORDER BY origin_seq DESC LIMIT 1`,
			origin, seq).Scan(&top)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cursor position: %w", err)
		}
		out[origin] = top.Int64
	}
	return out, nil
}

func cursorJSON(vv map[string]int64) string {
	b := []byte{'{'}
	first := true
	for k, v := range vv {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = strconv.AppendQuote(b, k)
		b = append(b, ':')
		b = strconv.AppendInt(b, v, 10)
	}
	return string(append(b, '}'))
}

// LatestSeq is the local seq of the newest event (0 when empty).
func (s *Store) LatestSeq(ctx context.Context) (int64, error) {
	var seq sql.NullInt64
	if err := s.reads.pool().QueryRowContext(ctx, `SELECT max(rowid) FROM events`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("latest seq: %w", err)
	}
	return seq.Int64, nil
}

// EventSeq returns the local seq of an event id.
func (s *Store) EventSeq(ctx context.Context, id string) (int64, error) {
	return anchorSeq(ctx, s.reads.pool(), id, "since_event_id", ErrCursorNotHeld)
}
