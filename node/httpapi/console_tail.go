package httpapi

import "net/http"

// handleTail answers GET /ui/api/tail: /logstream/stream for the
// console, with the session's identity, so the page's EventSource (which
// cannot send an Authorization header) tails the log with exactly the
// filters, start positions (since_event_id, Last-Event-ID on a
// reconnect, cursor), read scope and caps of the stream route. The
// stream ends at sign-out, and when the session would expire with no
// other activity; the browser's reconnect then meets the session check
// again.
func (c *console) handleTail(w http.ResponseWriter, r *http.Request, sess *consoleSession) {
	ctx, release := c.sessions.stream(r.Context(), sess)
	defer release()
	c.s.handleStream(w, r.WithContext(ctx))
}
