package httpapi

import (
	"context"
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/store"
)

const (
	// eventPageLimit is the default page of the stream and tail lists.
	eventPageLimit = 50
	// threadPageLimit is one page of a thread's timeline (the store's
	// page limit); a longer thread pages by cursor.
	threadPageLimit = 500
	// inlineArtifactBytes is the most of an artifact's content a thread
	// shows inline; the rest is cut, and the page says so.
	inlineArtifactBytes = 256 << 10
)

// streamsPageLimit is how many streams the streams page lists, the most
// recently active first.
const streamsPageLimit = 100

// handleStreams answers GET /ui/api/streams: the streams the caller may
// read, the most recently active first, with their event counts (up to
// store.StreamCountCap) and last activity.
func (c *console) handleStreams(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	streams, more, err := c.store.Streams(r.Context(), auth.IdentityFrom(r.Context()).ReadScope(), streamsPageLimit)
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	type row struct {
		Stream     string `json:"stream"`
		Events     int64  `json:"events"`
		Capped     bool   `json:"capped"`
		LastActive string `json:"last_active"`
	}
	rows := make([]row, len(streams))
	for i, s := range streams {
		rows[i] = row(s)
	}
	writeConsoleJSON(w, http.StatusOK, map[string]any{"streams": rows, "more": more})
}

// handleEventPage answers GET /ui/api/events: a page of the events that
// match the filters of /logstream/events (stream, room, topic, type,
// to_agent, writer, correlation_id, status), newest first, bodies cut to
// a preview; before=EVENT_ID pages back from an event, and limit sets the
// page (default 50, at most 500). The stream page and the tail's first
// screen read it.
func (c *console) handleEventPage(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	q := parseQuery(r.URL.RawQuery)
	f, err := q.streamFilter()
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	limit, err := q.intParam("limit", eventPageLimit)
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	if f.Limit, err = rules.Limit(limit); err != nil {
		writeConsoleError(w, http.StatusBadRequest, err.Error())
		return
	}
	f.Order, f.Preview, f.BeforeEventID = "desc", true, q["before"]
	f.Scope = auth.IdentityFrom(r.Context()).ReadScope()
	page, err := c.store.List(r.Context(), f)
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	out := map[string]any{"events": nonNilEvents(page.Events)}
	if n := len(page.Events); n > 0 && (n == f.Limit || page.Cut) {
		out["before"] = page.Events[n-1].ID
	}
	writeConsoleJSON(w, http.StatusOK, out)
}

// threadArtifact is an artifact a thread's events name, shown inline.
type threadArtifact struct {
	ID        string   `json:"id"`
	Kind      string   `json:"kind"`
	SHA256    string   `json:"sha256"`
	SizeBytes int64    `json:"size_bytes"`
	CreatedBy string   `json:"created_by"`
	CreatedAt string   `json:"created_at"`
	Content   string   `json:"content"`
	Cut       bool     `json:"cut"`
	Warnings  []string `json:"warnings"`
}

// threadPage is GET /ui/api/thread's answer.
type threadPage struct {
	ID     string        `json:"id"`
	Events []store.Event `json:"events"`
	// Cursor resumes a thread longer than one page.
	Cursor    string                    `json:"cursor,omitempty"`
	Artifacts map[string]threadArtifact `json:"artifacts"`
	// Replicas names the replicas the events came through, by member
	// name, for an admin (an agent token sees replica ids only).
	Replicas map[string]string `json:"replicas"`
}

// handleThread answers GET /ui/api/thread?id=ID: the thread of a
// correlation id as a timeline, oldest first in HLC order, with the
// event whose id it is (an ask without a correlation id, whose acks take
// its id as theirs), the artifacts the events name (content inline,
// patches with the hub's advisory warnings), all within the caller's
// read scope. cursor= continues a long thread.
func (c *console) handleThread(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	ctx := r.Context()
	q := r.URL.Query()
	id, err := rules.Routing(q.Get("id"), "id", true)
	if err != nil {
		writeConsoleError(w, http.StatusBadRequest, err.Error())
		return
	}
	scope := auth.IdentityFrom(ctx).ReadScope()
	out := threadPage{ID: id, Artifacts: map[string]threadArtifact{}, Replicas: map[string]string{}}
	cursor := q.Get("cursor")
	if cursor == "" {
		root, err := c.eventByID(ctx, scope, id)
		if err != nil {
			c.writeStoreError(w, r, err)
			return
		}
		out.Events = root
	}
	page, err := c.store.List(ctx, store.Filter{CorrelationID: id, Order: "asc", Limit: threadPageLimit, Cursor: cursor, Scope: scope})
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	out.Events = nonNilEvents(append(out.Events, page.Events...))
	if len(page.Events) == threadPageLimit || page.Cut {
		out.Cursor = page.Cursor
	}
	for _, e := range out.Events {
		for _, aid := range e.ArtifactIDs {
			if _, done := out.Artifacts[aid]; done {
				continue
			}
			art, ok, err := c.artifact(ctx, scope, aid)
			if err != nil {
				c.writeStoreError(w, r, err)
				return
			}
			if ok {
				out.Artifacts[aid] = art
			}
		}
	}
	if scope == nil {
		out.Replicas = c.replicaNames(ctx)
	}
	writeConsoleJSON(w, http.StatusOK, out)
}

// eventByID is the event id when it exists, has no correlation id of
// its own equal to id (the list has it then) and scope may read it;
// otherwise none.
func (c *console) eventByID(ctx context.Context, scope *store.ReadScope, id string) ([]store.Event, error) {
	seq, err := c.store.EventSeq(ctx, id)
	var missing *store.ValidationError
	if errors.As(err, &missing) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	page, err := c.store.List(ctx, store.Filter{AfterSeq: seq - 1, Order: "asc", Limit: 1, Scope: scope})
	if err != nil || len(page.Events) == 0 || page.Events[0].ID != id || page.Events[0].CorrelationID == id {
		return nil, err
	}
	return page.Events, nil
}

// artifact is artifact id as artifact_get serves it to the scope (false:
// hidden or missing), its content cut at inlineArtifactBytes.
func (c *console) artifact(ctx context.Context, scope *store.ReadScope, id string) (threadArtifact, bool, error) {
	if scope != nil {
		if ok, err := c.store.ArtifactVisible(ctx, scope, id); err != nil || !ok {
			return threadArtifact{}, false, err
		}
	}
	a, err := c.store.GetArtifact(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return threadArtifact{}, false, nil
	}
	if err != nil {
		return threadArtifact{}, false, err
	}
	out := threadArtifact{ID: a.ID, Kind: a.Kind, SHA256: a.SHA256, SizeBytes: a.SizeBytes, CreatedBy: a.CreatedBy,
		CreatedAt: a.CreatedAt, Content: a.Content, Warnings: nonNil(store.PatchWarnings(a.Kind, a.Content))}
	if len(out.Content) > inlineArtifactBytes {
		out.Content, out.Cut = cutUTF8(out.Content, inlineArtifactBytes), true
	}
	return out, true, nil
}

// cutUTF8 is s cut to at most n bytes on a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
