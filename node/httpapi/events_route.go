package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/internal/eventpage"
	"github.com/lsnode/lsnode/store"
)

// eventsDefaultLimit is the page size of GET /logstream/events.
const eventsDefaultLimit = 50

// handleEvents serves GET /logstream/events (RFC 003 §9.5, a route the
// hub lacks: docs/architecture.md#rfcs): a JSON page
// {"events", "count", "cursor"} of the events after a cursor (the shape
// of mempalace_event_list and _wait, eventpage.Render), oldest
// first, with the filters of the stream. The cursor is the portable
// "cursor" of a previous page (any node) or since_event_id (this node);
// without one the page starts at the beginning of the log. With wait_ms
// an empty page waits up to that long for a matching commit and the
// answer says "timed_out".
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	q := parseQuery(r.URL.RawQuery)
	f, wait, err := eventsRequest(q, s.cfg.MaxLongPoll)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	f.Scope = auth.IdentityFrom(r.Context()).ReadScope()
	if wait < 0 {
		page, err := s.store.List(r.Context(), f)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		writeJSON(w, http.StatusOK, eventpage.Render(nil, page, true))
		return
	}
	if !s.clientWaits.Acquire(r) {
		s.clientWaits.refuse(w)
		return
	}
	defer s.clientWaits.Release(r)
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(wait + s.cfg.WriteTimeout))
	page, timedOut, err := s.longPoll(r.Context(), f, wait)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, eventpage.Render(&timedOut, page, true))
}

// eventsParams are the query parameters GET /logstream/events takes: the
// stream's filters, the paging of event_list, and wait_ms.
var eventsParams = []string{"stream", "room", "topic", "type", "to_agent", "writer", "from_agent", "correlation_id",
	"status", "since_created_at", "cursor", "since_event_id", "before_event_id", "order", "limit", "wait_ms"}

// eventsRequest reads the filters, the cursor, the order, limit and
// wait_ms (-1 when absent) of an events request. A newest-first page
// (order=desc) pages back with before_event_id; a long poll waits for
// newer events, so it takes the oldest-first order only.
func eventsRequest(q query, maxWait time.Duration) (store.Filter, time.Duration, error) {
	f, err := q.streamFilter()
	if err != nil {
		return f, 0, err
	}
	f.SinceCreatedAt = q["since_created_at"]
	if c := q["cursor"]; c != "" {
		f.Cursor = c
	} else {
		f.SinceEventID = q["since_event_id"]
	}
	f.BeforeEventID = q["before_event_id"]
	if o, ok := q["order"]; ok {
		if f.Order, err = rules.Order(o); err != nil {
			return f, 0, invalid(err.Error())
		}
	}
	if f.Limit, err = q.limit(); err != nil {
		return f, 0, err
	}
	ms, err := q.wholeParam("wait_ms", -1)
	switch {
	case err != nil:
		return f, 0, err
	case ms < 0 && q["wait_ms"] != "":
		return f, 0, invalid("wait_ms must be a non-negative integer")
	case ms >= 0 && f.Order == "desc":
		return f, 0, invalid("wait_ms waits for newer events: it takes order=asc")
	case ms < 0:
		return f, -1, nil
	case ms > maxWait.Milliseconds():
		return f, maxWait, nil
	}
	return f, time.Duration(ms) * time.Millisecond, nil
}

// longPoll waits for the page of f. When the node starts draining, it
// stops waiting and answers with what the log holds (timed out).
func (s *Server) longPoll(ctx context.Context, f store.Filter, wait time.Duration) (store.ListResult, bool, error) {
	s.metrics.longPolling.Inc()
	defer s.metrics.longPolling.Dec()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.drain, cancel)
	defer stop()
	page, timedOut, err := s.store.Wait(wctx, f, wait)
	if err != nil && ctx.Err() == nil && s.drain.Err() != nil {
		page, err = s.store.List(ctx, f)
		return page, true, err
	}
	return page, timedOut, err
}
