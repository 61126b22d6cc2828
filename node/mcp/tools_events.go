package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/node/internal/eventpage"
	"github.com/lsnode/lsnode/store"
)

// fromAgentNote is the newest hub's hint when a list or wait passes
// from_agent (an identity, never a filter) without writer.
const fromAgentNote = "from_agent is your identity and does not filter event_list/event_wait. " +
	"Filter by who wrote an event with writer=<agent>; for your inbox use to_agent=<you>."

func (t *toolSet) eventAppend(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	in := store.AppendInput{ // read in the hub's validation order
		Type:           c.eventType("type"),
		Stream:         c.routing("stream", true),
		Room:           c.routing("room", true),
		Topic:          c.routing("topic", false),
		FromAgent:      c.routing("from_agent", true),
		ToAgent:        c.routing("to_agent", false),
		CorrelationID:  c.routing("correlation_id", false),
		Branch:         c.routing("branch", false),
		BaseCommit:     c.routing("base_commit", false),
		Status:         c.status("status"),
		Body:           c.body("body"),
		Metadata:       c.metadata("metadata"),
		ArtifactIDs:    c.artifactIDs("artifact_ids"),
		IdempotencyKey: c.routing("idempotency_key", false),
	}
	if c.err != nil {
		return nil, c.err
	}
	if err := t.checkWriter(ctx, "from_agent", in.FromAgent); err != nil {
		return nil, err
	}
	if err := t.checkArtifactsVisible(ctx, in.ArtifactIDs); err != nil {
		return nil, err
	}
	w, err := t.log.Append(ctx, in)
	if err != nil {
		return nil, err
	}
	return written(pyjson.Object{{Key: "event", Value: w.Event}}, w), nil
}

func (t *toolSet) eventAck(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	id := c.routing("event_id", true)
	if c.err != nil {
		return nil, c.err
	}
	// The hub looks the target up before it checks anything else; a
	// target outside the caller's read scope is not found either.
	var missing *store.ValidationError
	if _, err := t.log.EventSeq(ctx, id); errors.As(err, &missing) {
		return nil, toolFailure(fmt.Sprintf("event %s not found", rules.Repr(id)))
	} else if err != nil {
		return nil, err
	}
	if ok, err := t.visible(ctx, id, false); err != nil || !ok {
		return nil, cmp.Or(err, toolFailure(fmt.Sprintf("event %s not found", rules.Repr(id))))
	}
	in := store.AckInput{EventID: id}
	// An absent or null topic copies the target's; an empty one leaves
	// the ack without one, as the hub's "topic if topic is not None" does.
	in.Topic = c.routing("topic", false)
	in.ClearTopic = c.a.get("topic") == ""
	in.FromAgent = c.routing("from_agent", true)
	in.Status = c.status("status")
	in.Body = c.body("body")
	in.IdempotencyKey = c.routing("idempotency_key", false)
	if c.err != nil {
		return nil, c.err
	}
	if err := t.checkWriter(ctx, "from_agent", in.FromAgent); err != nil {
		return nil, err
	}
	w, err := t.log.Ack(ctx, in)
	if err != nil {
		return nil, err
	}
	return written(pyjson.Object{{Key: "event", Value: w.Event}}, w), nil
}

// filter reads the filters list and wait share, in the hub's order. The
// writer filter is checked where the hub checks it, under the name the
// hub's error gives it (from_agent).
func filter(c *checker) store.Filter {
	var f store.Filter
	f.Stream = c.routing("stream", false)
	f.Room = c.routing("room", false)
	f.Topic = c.routing("topic", false)
	f.Type = c.eventTypeFilter("type")
	f.ToAgent = c.routing("to_agent", false)
	f.Writer = c.routingAs("writer", "from_agent", false)
	f.CorrelationID = c.routing("correlation_id", false)
	f.Status = c.status("status")
	f.SinceEventID = c.routing("since_event_id", false)
	return f
}

func (t *toolSet) eventList(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	f := filter(c)
	f.BeforeEventID = c.routing("before_event_id", false)
	f.SinceCreatedAt = c.sinceCreatedAt("since_created_at")
	f.Order = c.order("order")
	f.Limit = c.limit("limit")
	f.Cursor = c.cursor("cursor")
	f.Preview = pyrepr.Truthy(a.get("preview"))
	if c.err != nil {
		return nil, c.err
	}
	var err error
	if f.Scope, err = t.readScope(ctx); err != nil {
		return nil, err
	}
	page, err := t.log.List(ctx, f)
	if err != nil {
		return nil, err
	}
	return renderedPage{withNote(eventpage.Render(nil, page, true), a)}, nil
}

func (t *toolSet) eventWait(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	timeout := time.Duration(c.timeoutMS("timeout_ms")) * time.Millisecond // checked first, as the hub does
	if t.maxWait > 0 {
		timeout = min(timeout, t.maxWait)
	}
	f := filter(c)
	f.SinceCreatedAt = c.sinceCreatedAt("since_created_at")
	f.Limit = c.limit("limit")
	f.Cursor = c.cursor("cursor")
	f.Order = "asc"
	if c.err != nil {
		return nil, c.err
	}
	var err error
	if f.Scope, err = t.readScope(ctx); err != nil {
		return nil, err
	}
	page, timedOut, err := t.wait(ctx, f, timeout)
	if err != nil {
		return nil, err
	}
	if timedOut {
		page = store.ListResult{}
	}
	return renderedPage{withNote(eventpage.Render(&timedOut, page, !timedOut), a)}, nil
}

// wait blocks until the store commits a match or the timeout passes. The
// caller hanging up, or the node starting to drain, ends it early as a
// timeout: nobody is left to read the answer, or the client should retry
// elsewhere.
func (t *toolSet) wait(ctx context.Context, f store.Filter, timeout time.Duration) (store.ListResult, bool, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, done := range []context.Context{t.drain, callerContext(ctx)} {
		if done != nil {
			stop := context.AfterFunc(done, cancel)
			defer stop()
		}
	}
	page, timedOut, err := t.log.Wait(wctx, f, timeout)
	if err != nil && wctx.Err() != nil && errors.Is(err, wctx.Err()) {
		return store.ListResult{}, true, nil
	}
	return page, timedOut, err
}

func (t *toolSet) eventOwed(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	agent := c.routing("agent", true)
	stream := c.routing("stream", false)
	limit := c.limit("limit")
	if c.err != nil {
		return nil, c.err
	}
	scope, err := t.readScope(ctx)
	if err != nil {
		return nil, err
	}
	asks, err := t.log.OwedAsks(ctx, scope, agent, stream, limit)
	if err != nil {
		return nil, err
	}
	return eventpage.RenderOwed(asks)
}

func (t *toolSet) eventAwaiting(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	q := store.AwaitingQuery{Agent: c.routing("agent", true), Stream: c.routing("stream", false)}
	q.OlderThan = c.olderThan("older_than")
	q.Limit = c.limit("limit")
	if c.err != nil {
		return nil, c.err
	}
	var err error
	if q.Scope, err = t.readScope(ctx); err != nil {
		return nil, err
	}
	asks, err := t.log.Awaiting(ctx, q)
	if err != nil {
		return nil, err
	}
	return eventpage.RenderAwaiting(asks)
}

func (t *toolSet) eventSearch(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	q := store.SearchQuery{Query: c.searchQuery("query")}
	q.Filter.Stream = c.routing("stream", false)
	q.Filter.Room = c.routing("room", false)
	q.Filter.Type = c.eventTypeFilter("type")
	q.Filter.Writer = c.routing("from_agent", false)
	q.Filter.ToAgent = c.routing("to_agent", false)
	q.Order = c.searchOrder("order")
	q.Filter.Cursor = c.cursor("cursor")
	q.Filter.Limit = c.limit("limit")
	if c.err != nil {
		return nil, c.err
	}
	var err error
	if q.Filter.Scope, err = t.readScope(ctx); err != nil {
		return nil, err
	}
	res, err := t.log.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	return renderedPage{eventpage.RenderSearch(res)}, nil
}

// withNote adds the hub's from_agent note when the caller passed an
// identity but no writer filter.
func withNote(out pyjson.Object, a *callArgs) pyjson.Object {
	if pyrepr.Truthy(a.get("from_agent")) && !pyrepr.Truthy(a.get("writer")) {
		out = append(out, pyjson.Member{Key: "note", Value: fromAgentNote})
	}
	return out
}

// written adds what a write learned beyond its record: "duplicate" when an
// idempotency key matched an earlier write, and "warnings" when the
// writer's name is also being used through another replica.
func written(out pyjson.Object, w store.Written) pyjson.Object {
	if w.Duplicate {
		out = append(out, pyjson.Member{Key: "duplicate", Value: true})
	}
	if len(w.SharedName) > 0 {
		out = append(out, pyjson.Member{Key: "warnings", Value: []string{sharedNameWarning(w.Event.FromAgent, w.SharedName)}})
	}
	return out
}

func sharedNameWarning(agent string, elsewhere []string) string {
	return fmt.Sprintf("from_agent %s is also writing through %s; two devices that share one "+
		"agent name cannot tell each other's asks apart (give each its own name, e.g. "+
		"<harness>@<device>)", rules.Repr(agent), strings.Join(elsewhere, ", "))
}
