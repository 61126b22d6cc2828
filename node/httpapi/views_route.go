package httpapi

import (
	"context"
	"net/http"

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
