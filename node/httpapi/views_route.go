package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/internal/eventpage"
	"github.com/lsnode/lsnode/store"
)

// searchLog is the search view (store.Search). Like the awaiting view
// (awaitingLog), a log without it answers its route 501: the view is
// unavailable, not empty.
type searchLog interface {
	Search(ctx context.Context, q store.SearchQuery) (store.SearchResult, error)
}

// viewUnavailable answers a view route of a log that lacks the view.
func viewUnavailable(w http.ResponseWriter, view string) {
	writeJSON(w, http.StatusNotImplemented, syncwire.ErrorAnswer(view+" is not available on this log"))
}

// awaitingParams are the query parameters GET /lsnode/awaiting takes.
var awaitingParams = []string{"agent", "stream", "older_than", "limit"}

// handleAwaiting serves GET /lsnode/awaiting: the asks agent wrote that
// their addressees still owe, within the caller's read scope; the
// payload of mempalace_event_awaiting ({"asks", "count"}).
func (s *Server) handleAwaiting(w http.ResponseWriter, r *http.Request) {
	av, ok := s.store.(awaitingLog)
	if !ok {
		viewUnavailable(w, "the awaiting view")
		return
	}
	q := parseQuery(r.URL.RawQuery)
	aq := store.AwaitingQuery{Agent: q["agent"], Stream: q["stream"], Scope: auth.IdentityFrom(r.Context()).ReadScope()}
	var err error
	if aq.OlderThan, err = store.ParseOlderThan(q["older_than"]); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if aq.Limit, err = q.limit(); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	asks, err := av.Awaiting(r.Context(), aq)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := eventpage.RenderAwaiting(asks)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// searchParams are the query parameters GET /logstream/search takes: the
// query q and the filters of mempalace_event_search.
var searchParams = []string{"q", "stream", "room", "type", "from_agent", "to_agent", "order", "cursor", "limit"}

// handleSearch serves GET /logstream/search: a full-text search page
// within the caller's read scope, the payload of mempalace_event_search
// ({"events", "count", "cursor"}). A malformed query is a 400 naming it.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	sv, ok := s.store.(searchLog)
	if !ok {
		viewUnavailable(w, "search")
		return
	}
	q := parseQuery(r.URL.RawQuery)
	sq := store.SearchQuery{Query: q["q"], Filter: store.Filter{
		Stream: q["stream"], Room: q["room"], Type: q["type"], Writer: q["from_agent"], ToAgent: q["to_agent"],
		Cursor: q["cursor"], Scope: auth.IdentityFrom(r.Context()).ReadScope(),
	}}
	var err error
	if sq.Order, err = eventpage.SearchOrder(q["order"]); err != nil {
		writeError(w, r, s.log, invalid(err.Error()))
		return
	}
	if sq.Filter.Limit, err = q.limit(); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	res, err := sv.Search(r.Context(), sq)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, eventpage.RenderSearch(res))
}

// cyclesLog is the wait-for cycles view (store.Cycles).
type cyclesLog interface {
	Cycles(ctx context.Context, q store.CycleQuery) (store.CycleResult, error)
}

// cyclesParams are the query parameters GET /lsnode/cycles takes.
var cyclesParams = []string{"limit"}

// handleCycles serves GET /lsnode/cycles?limit=N: the wait-for cycles
// among the asks the caller may read, at most limit (default and
// largest store.MaxCycles): {"cycles", "count", "truncated"}. Each cycle
// lists its agents in wait order, each waiting on the next, and the last
// on the first; each edge names the asker (from), the agent that owes it
// (to), how many asks it owes, the oldest of their ids (at most
// store.MaxCycleAsks) and the oldest's age in seconds (null if it can no
// longer be read).
func (s *Server) handleCycles(w http.ResponseWriter, r *http.Request) {
	cv, ok := s.store.(cyclesLog)
	if !ok {
		viewUnavailable(w, "the wait-for cycles view")
		return
	}
	limit, err := parseQuery(r.URL.RawQuery).wholeParam("limit", store.MaxCycles)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if limit < 1 {
		writeError(w, r, s.log, invalid("limit must be a positive integer"))
		return
	}
	scope := auth.IdentityFrom(r.Context()).ReadScope()
	res, err := cv.Cycles(r.Context(), store.CycleQuery{Limit: int(min(limit, store.MaxCycles)), Scope: scope})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	ages := askAges{log: s.store, scope: scope, now: s.wall.Now(), seen: map[string]any{}}
	cycles := make([]any, len(res.Cycles))
	for i, c := range res.Cycles {
		agents, edges := waitOrder(c)
		rows := make([]any, len(edges))
		for j, e := range edges {
			age, err := ages.oldest(r.Context(), e.Asks)
			if err != nil {
				writeError(w, r, s.log, err)
				return
			}
			rows[j] = pyjson.Object{
				{Key: "from", Value: e.To}, {Key: "to", Value: e.Owes}, {Key: "count", Value: e.Count},
				{Key: "asks", Value: nonNil(e.Asks)}, {Key: "oldest_age_s", Value: age},
			}
		}
		cycles[i] = pyjson.Object{{Key: "agents", Value: agents}, {Key: "edges", Value: rows}}
	}
	writeJSON(w, http.StatusOK, pyjson.Object{
		{Key: "cycles", Value: cycles}, {Key: "count", Value: len(cycles)}, {Key: "truncated", Value: res.Truncated},
	})
}

// waitOrder is a cycle in wait order: agents[i] asked agents[i+1] (the
// last asked the first), which has not answered, and edges[i] is the
// store's edge of that pair, whose To is agents[i]. The store lists a
// cycle in the order of who owes whom, the reverse; both start at the
// smallest name.
func waitOrder(c store.Cycle) (agents []string, edges []store.CycleEdge) {
	n := len(c.Agents)
	agents, edges = make([]string, n), make([]store.CycleEdge, n)
	for i := range n {
		agents[i] = c.Agents[(n-i)%n]
		edges[i] = c.Edges[n-1-i]
	}
	return agents, edges
}

// askAges measures the ages of asks (by HLC wall time, against now) as
// the caller may read them, each looked up once.
type askAges struct {
	log   Log
	scope *store.ReadScope
	now   time.Time
	seen  map[string]any // id -> age in seconds, or nil
}

// oldest is the age in whole seconds of the first of ids (the oldest),
// or nil when there is none or it cannot be read.
func (a *askAges) oldest(ctx context.Context, ids []string) (any, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	id := ids[0]
	if age, ok := a.seen[id]; ok {
		return age, nil
	}
	age, err := a.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	a.seen[id] = age
	return age, nil
}

// lookup reads the ask id as the caller may (EventSeq, then the one
// event at that seq) and measures its age.
func (a *askAges) lookup(ctx context.Context, id string) (any, error) {
	seq, err := a.log.EventSeq(ctx, id)
	if errors.Is(err, store.ErrCursorNotHeld) {
		return nil, nil // not held under that id: nothing to measure
	}
	if err != nil {
		return nil, err
	}
	page, err := a.log.List(ctx, store.Filter{AfterSeq: seq - 1, Limit: 1, Order: "asc", Scope: a.scope})
	if err != nil || len(page.Events) == 0 || page.Events[0].ID != id {
		return nil, err
	}
	ts, err := hlc.Parse(page.Events[0].HLC)
	if err != nil {
		return nil, nil // an event without a stamp has no age
	}
	return int64(max(a.now.Sub(time.UnixMilli(ts.WallMS)), 0) / time.Second), nil
}

// limit reads a page limit as a list's: a whole number, clamped to the
// largest page.
func (q query) limit() (int, error) {
	n, err := q.wholeParam("limit", eventsDefaultLimit)
	if err != nil {
		return 0, err
	}
	limit, err := rules.Limit(n)
	if err != nil {
		return 0, invalid(err.Error())
	}
	return limit, nil
}
