// Package eventpage renders a page of events the way both surfaces
// answer one: mempalace_event_list and _wait (node/mcp) and GET
// /logstream/events (node/httpapi) share the shape {"timed_out",
// "events", "count", "cursor"}; the coordination views (views.go) add
// the asks' claims to their events: mempalace_event_owed's page and the
// awaiting answer of both surfaces. It holds only those shapes; the
// pages come from the store.
package eventpage

import (
	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/store"
)

// Render renders a list or wait answer: timed_out first when
// given, then events and count, then the cursor when asked for and known.
func Render(timedOut *bool, page store.ListResult, withCursor bool) pyjson.Object {
	events := make([]any, len(page.Events))
	for i := range page.Events {
		events[i] = page.Events[i]
	}
	var out pyjson.Object
	if timedOut != nil {
		out = append(out, pyjson.Member{Key: "timed_out", Value: *timedOut})
	}
	out = append(out, pyjson.Member{Key: "events", Value: events}, pyjson.Member{Key: "count", Value: len(events)})
	if withCursor && page.Cursor != "" {
		out = append(out, pyjson.Member{Key: "cursor", Value: page.Cursor})
	}
	return out
}
