package store

import (
	"strings"

	"github.com/lsnode/lsnode/store/rules"
)

// previewChars is how many code points of a body a preview keeps.
const previewChars = 200

// compiled is a validated filter: SQL conditions plus paging.
type compiled struct {
	where  []string
	args   []any
	to     string // to_agent filter: X or '*'
	since  string // since_event_id
	before string // before_event_id
	cursor map[string]int64
	order  string
	limit  int
	prev   bool
}

// compileFilter validates a filter with the Python rules, in the Python
// order, and turns its equality filters into SQL.
func compileFilter(f Filter) (*compiled, error) {
	c := &compiled{prev: f.Preview}
	eq := []struct{ v, field, col string }{
		{f.Stream, "stream", "stream"}, {f.Room, "room", "room"}, {f.Topic, "topic", "topic"},
	}
	for _, e := range eq {
		if err := c.equal(e.v, e.field, e.col); err != nil {
			return nil, err
		}
	}
	if f.Type != "" {
		t, err := rules.EventType(f.Type)
		if err != nil {
			return nil, wrapRule(err)
		}
		c.add("type = ?", t)
	}
	to, err := rules.Routing(f.ToAgent, "to_agent", false)
	if err != nil {
		return nil, wrapRule(err)
	}
	c.to = to // matched by list: to_agent = to OR to_agent = '*
	for _, e := range []struct{ v, field, col string }{
		{f.Writer, "writer", "from_agent"}, {f.CorrelationID, "correlation_id", "correlation_id"},
	} {
		if err := c.equal(e.v, e.field, e.col); err != nil {
			return nil, err
		}
	}
	status, err := rules.Status(f.Status)
	if err != nil {
		return nil, wrapRule(err)
	}
	if status != "" {
		c.add("status = ?", status)
	}
	if c.since, err = rules.Routing(f.SinceEventID, "since_event_id", false); err != nil {
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
	}
	if f.AfterSeq > 0 {
		c.add("rowid > ?", f.AfterSeq)
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

func (c *compiled) equal(v, field, col string) error {
	clean, err := rules.Routing(v, field, false)
	if err != nil {
		return wrapRule(err)
	}
	if clean != "" {
		c.add(col+" = ?", clean)
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

// preview cuts a long body to its first 200 code points (wire §2.3).
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
