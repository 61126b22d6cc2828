package store

import (
	"context"
	"database/sql/driver"
	"fmt"
	"path"
	"strings"

	"modernc.org/sqlite"
)

// ReadScope is what an agent token may read (README "Agent tokens"). A nil
// *ReadScope reads everything; a non-nil one reads the union of:
//   - the mailboxes of Agents: events addressed to or written by a name
//     matching one of the patterns;
//   - broadcasts (to_agent '*'), when Broadcasts is set;
//   - whole streams matching one of Streams.
//
// Patterns have path.Match semantics ("ci-*", "project/*"); a pattern
// without metacharacters is an exact name. Callers validate patterns
// before use: a malformed one matches nothing.
type ReadScope struct {
	Agents     []string
	Broadcasts bool
	Streams    []string
}

// matchFunc is the SQL function the scope conditions call for patterns.
const matchFunc = "lsnode_match"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(matchFunc, 2, sqlMatch)
}

// sqlMatch is lsnode_match(pattern, value): matchName in SQL.
func sqlMatch(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	pattern, _ := args[0].(string)
	value, _ := args[1].(string)
	if matchName(pattern, value) {
		return int64(1), nil
	}
	return int64(0), nil
}

// matchName is path.Match, false for an absent ("" or NULL) value or a
// malformed pattern.
func matchName(pattern, value string) bool {
	if value == "" {
		return false
	}
	matched, err := path.Match(pattern, value)
	return err == nil && matched
}

// allows reports whether the scope may read e: condition, in Go, for the
// read cache (a nil scope allows everything).
func (sc *ReadScope) allows(e *Event) bool {
	if sc == nil || (sc.Broadcasts && e.ToAgent == "*") {
		return true
	}
	any := func(patterns []string, value string) bool {
		for _, p := range patterns {
			if matchName(p, value) {
				return true
			}
		}
		return false
	}
	return any(sc.Agents, e.ToAgent) || any(sc.Agents, e.FromAgent) || any(sc.Streams, e.Stream)
}

// HasMailbox reports whether the scope reads agent's whole mailbox: a nil
// scope reads everything, and a non-nil one every event to or from a name
// one of its Agents patterns matches. A query that picks only events
// addressed to or written by such an agent needs no scope condition.
func (sc *ReadScope) HasMailbox(agent string) bool {
	if sc == nil {
		return true
	}
	for _, p := range sc.Agents {
		if matchName(p, agent) {
			return true
		}
	}
	return false
}

// IsPattern reports whether p has path.Match metacharacters.
func IsPattern(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// condition is the scope as one SQL condition on the events table, whose
// columns carry prefix ("" or "e."). The mailboxes of exact names and the
// broadcasts are the set of rowids their indexes (to_agent, from_agent)
// give, which SQLite builds once per query: a page then walks the
// mailbox, however sparse it is in the log. Patterns and streams are
// checked row by row.
func (sc *ReadScope) condition(prefix string) (string, []any) {
	parts, args, exact := sc.agentPatterns(prefix)
	var subs []string
	if sc.Broadcasts {
		subs = append(subs, `SELECT rowid FROM events WHERE to_agent = '*'`)
	}
	var subArgs []any
	if len(exact) > 0 {
		in := " IN (?" + strings.Repeat(", ?", len(exact)-1) + ")"
		subs = append(subs, `SELECT rowid FROM events WHERE to_agent`+in, `SELECT rowid FROM events WHERE from_agent`+in)
		subArgs = append(append(subArgs, exact...), exact...)
	}
	if len(subs) > 0 {
		parts = append(parts, prefix+"rowid IN ("+strings.Join(subs, " UNION ALL ")+")")
		args = append(args, subArgs...)
	}
	return sc.withStreams(prefix, parts, args)
}

// rowCondition is the scope as a condition on one row's own columns
// (prefix as condition's), with no subquery: for a query another index
// drives to a few rows (one id, one thread, one owed row), where
// condition would first gather the scope's whole mailbox, whose writer
// side no index holds.
func (sc *ReadScope) rowCondition(prefix string) (string, []any) {
	parts, args, exact := sc.agentPatterns(prefix)
	if len(exact) > 0 {
		in := " IN (?" + strings.Repeat(", ?", len(exact)-1) + ")"
		parts = append(parts, prefix+"to_agent"+in, prefix+"from_agent"+in)
		args = append(append(args, exact...), exact...)
	}
	if sc.Broadcasts {
		parts = append(parts, prefix+"to_agent = '*'")
	}
	return sc.withStreams(prefix, parts, args)
}

// agentPatterns splits the scope's agents: each pattern becomes a
// row-by-row match of either end of an event (parts, args), and the exact
// names are returned for the caller to look up by index or by column.
func (sc *ReadScope) agentPatterns(prefix string) (parts []string, args, exact []any) {
	for _, p := range sc.Agents {
		if IsPattern(p) {
			parts = append(parts, matchFunc+"(?, "+prefix+"to_agent)", matchFunc+"(?, "+prefix+"from_agent)")
			args = append(args, p, p)
		} else {
			exact = append(exact, p)
		}
	}
	return parts, args, exact
}

// withStreams adds the scope's streams to parts, the scope's agent
// conditions, and joins them into one condition; no part at all reads
// nothing.
func (sc *ReadScope) withStreams(prefix string, parts []string, args []any) (string, []any) {
	var streams []any
	for _, p := range sc.Streams {
		if IsPattern(p) {
			parts, args = append(parts, matchFunc+"(?, "+prefix+"stream)"), append(args, p)
		} else {
			streams = append(streams, p)
		}
	}
	if len(streams) > 0 {
		parts = append(parts, prefix+"stream IN (?"+strings.Repeat(", ?", len(streams)-1)+")")
		args = append(args, streams...)
	}
	if len(parts) == 0 {
		return "0", nil
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}

// EventVisible reports whether the event id exists and scope may read it.
// A nil scope sees every event.
func (s *Store) EventVisible(ctx context.Context, scope *ReadScope, id string) (bool, error) {
	query, args := `SELECT 1 FROM events WHERE id = ?`, []any{id}
	if scope != nil {
		cond, cargs := scope.rowCondition("")
		query, args = query+" AND "+cond, append(args, cargs...)
	}
	return s.exists(ctx, query, args)
}

// ArtifactVisible reports whether the artifact id exists and scope may
// read it: it was created by a name of the scope's mailboxes, or an event
// the scope may read references it. An artifact referenced only by events
// outside the scope stays hidden (its contents are as private as the
// events that carry it). A nil scope sees every artifact.
func (s *Store) ArtifactVisible(ctx context.Context, scope *ReadScope, id string) (bool, error) {
	if scope == nil {
		return s.exists(ctx, `SELECT 1 FROM artifacts WHERE id = ?`, []any{id})
	}
	cond, cargs := scope.rowCondition("e.")
	query := `SELECT 1 FROM artifacts a WHERE a.id = ? AND (` + creatorCondition(scope.Agents, &cargs) +
		` OR EXISTS (SELECT 1 FROM event_artifacts ea JOIN events e ON e.id = ea.event_id WHERE ea.artifact_id = a.id AND ` +
		cond + `))`
	return s.exists(ctx, query, append([]any{id}, cargs...))
}

// creatorCondition matches a.created_by against the mailbox patterns,
// prepending its arguments to args.
func creatorCondition(agents []string, args *[]any) string {
	if len(agents) == 0 {
		return "0"
	}
	parts := make([]string, len(agents))
	head := make([]any, len(agents))
	for i, p := range agents {
		parts[i], head[i] = matchFunc+"(?, a.created_by)", p
	}
	*args = append(head, *args...)
	return "(" + strings.Join(parts, " OR ") + ")"
}

func (s *Store) exists(ctx context.Context, query string, args []any) (bool, error) {
	rows, err := s.reads.pool().QueryContext(ctx, query, args...)
	if err != nil {
		return false, fmt.Errorf("scope check: %w", err)
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}
