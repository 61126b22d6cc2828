package store

import (
	"cmp"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// previewChars is how many code points of a body a preview keeps.
const previewChars = 200

// compiled is a validated filter: SQL conditions plus paging.
type compiled struct {
	where []string
	args  []any
	to    string // to_agent filter: X or '*'
	since string // since_event_id
	// sinceName is what errors call since (Filter.SinceName).
	sinceName string
	before    string // before_event_id
	cursor    map[string]int64
	order     string
	limit     int
	prev      bool
	// The same conditions as where, as values, for the tail cache.
	eq       eventMatch
	afterSeq int64
}

// eventMatch holds a filter's equality conditions ("" is absent) and its
// created_at lower bound.
type eventMatch struct {
	stream, room, topic, typ, from, corr, status string
	sinceCreatedAt                               string
	scope                                        *ReadScope // nil: everything
}

// matches reports whether e meets every condition of m.
func (m *eventMatch) matches(e *Event) bool {
	return (m.stream == "" || e.Stream == m.stream) && (m.room == "" || e.Room == m.room) &&
		(m.topic == "" || e.Topic == m.topic) && (m.typ == "" || e.Type == m.typ) &&
		(m.from == "" || e.FromAgent == m.from) && (m.corr == "" || e.CorrelationID == m.corr) &&
		(m.status == "" || e.Status == m.status) && (m.sinceCreatedAt == "" || e.CreatedAt >= m.sinceCreatedAt) &&
		m.scope.allows(e)
}

// compileFilter validates a filter with the Python rules, in the Python
// order, and turns its equality filters into SQL.
func compileFilter(f Filter) (*compiled, error) {
	c := &compiled{prev: f.Preview}
	eq := []struct {
		v, field, col string
		dst           *string
	}{
		{f.Stream, "stream", "stream", &c.eq.stream}, {f.Room, "room", "room", &c.eq.room},
		{f.Topic, "topic", "topic", &c.eq.topic},
	}
	for _, e := range eq {
		if err := c.equal(e.v, e.field, e.col, e.dst); err != nil {
			return nil, err
		}
	}
	if f.Type != "" {
		t, err := rules.EventType(f.Type)
		if err != nil {
			return nil, wrapRule(err)
		}
		c.add("type = ?", t)
		c.eq.typ = t
	}
	to, err := rules.Routing(f.ToAgent, "to_agent", false)
	if err != nil {
		return nil, wrapRule(err)
	}
	c.to = to // matched by list: to_agent = to OR to_agent = '*
	for _, e := range []struct {
		v, field, col string
		dst           *string
	}{
		{f.Writer, "writer", "from_agent", &c.eq.from}, {f.CorrelationID, "correlation_id", "correlation_id", &c.eq.corr},
	} {
		if err := c.equal(e.v, e.field, e.col, e.dst); err != nil {
			return nil, err
		}
	}
	status, err := rules.Status(f.Status)
	if err != nil {
		return nil, wrapRule(err)
	}
	if status != "" {
		c.add("status = ?", status)
		c.eq.status = status
	}
	c.sinceName = cmp.Or(f.SinceName, "since_event_id")
	if c.since, err = rules.Routing(f.SinceEventID, c.sinceName, false); err != nil {
		return nil, wrapRule(err)
	}
	if c.before, err = rules.Routing(f.BeforeEventID, "before_event_id", false); err != nil {
		return nil, wrapRule(err)
	}
	if f.SinceCreatedAt != "" {
		at, err := rules.SinceCreatedAt(f.SinceCreatedAt)
		if err != nil {
			return nil, wrapRule(err)
		}
		c.add("created_at >= ?", at)
		c.eq.sinceCreatedAt = at
	}
	if f.AfterSeq > 0 {
		c.add("rowid > ?", f.AfterSeq)
		c.afterSeq = f.AfterSeq
	}
	// A writer whose whole mailbox the scope reads leaves the scope nothing
	// to hide: the plain writer filter, without gathering the mailbox.
	// A stream or a thread drives the query through its own index: the
	// scope is then checked on each of its rows, instead of gathering the
	// whole mailbox first.
	if f.Scope != nil && !f.Scope.HasMailbox(c.eq.from) {
		cond, args := f.Scope.condition("")
		if c.eq.stream != "" || c.eq.corr != "" {
			cond, args = f.Scope.rowCondition("")
		}
		c.where, c.args = append(c.where, cond), append(c.args, args...)
		c.eq.scope = f.Scope
	}
	c.limit = clampLimit(f.Limit)
	if c.order, err = rules.Order(nilIfEmpty(f.Order)); err != nil {
		return nil, wrapRule(err)
	}
	if f.Cursor != "" {
		if c.cursor, err = DecodeCursor(f.Cursor); err != nil {
			return nil, err
		}
	}
	if c.order == "" {
		c.order = "desc"
		if c.since != "" || c.cursor != nil || f.AfterSeq > 0 {
			c.order = "asc"
		}
	}
	return c, nil
}

func (c *compiled) add(cond string, arg any) {
	c.where = append(c.where, cond)
	c.args = append(c.args, arg)
}

func (c *compiled) equal(v, field, col string, dst *string) error {
	clean, err := rules.Routing(v, field, false)
	if err != nil {
		return wrapRule(err)
	}
	if clean != "" {
		c.add(col+" = ?", clean)
		*dst = clean
	}
	return nil
}

func clampLimit(n int) int {
	switch {
	case n <= 0:
		return rules.DefaultListLimit
	case n > rules.MaxListLimit:
		return rules.MaxListLimit
	}
	return n
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// preview cuts a long body to its first 200 code points (docs/compatibility.md#event-and-artifact-records).
func preview(e Event) Event {
	n := 0
	for i := range e.Body {
		if n == previewChars {
			e.BodyLength = len([]rune(e.Body))
			e.Body = e.Body[:i]
			e.BodyTruncated = true
			return e
		}
		n++
	}
	return e
}

// whereClause joins conditions with AND.
func whereClause(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}
