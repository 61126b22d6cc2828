package httpapi

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// TestEvents_NewestFirst: order=desc answers the newest events first, and
// before_event_id pages back from the oldest of a page.
func TestEvents_NewestFirst(t *testing.T) {
	n := htStart(t, nil)
	var all []string
	for range 5 {
		all = append(all, nodetest.Append(t, n.Store(), store.AppendInput{}).ID)
	}
	page := eventIDs(t, nodetest.JSON(t, nodetest.Get(t, n, "/logstream/events?order=desc&limit=2", "")))
	if want := []string{all[4], all[3]}; !slices.Equal(page, want) {
		t.Fatalf("order=desc&limit=2: %v, want the newest two %v", page, want)
	}
	older := eventIDs(t, nodetest.JSON(t, nodetest.Get(t, n, "/logstream/events?order=desc&limit=2&before_event_id="+page[1], "")))
	if want := []string{all[2], all[1]}; !slices.Equal(older, want) {
		t.Fatalf("the page before %s: %v, want %v", page[1], older, want)
	}
	r := nodetest.Get(t, n, "/logstream/events?order=desc&wait_ms=10", "")
	if r.Status != 400 || !strings.Contains(r.Body, "wait_ms waits for newer events: it takes order=asc") {
		t.Fatalf("order=desc with wait_ms: %d %s", r.Status, r.Body)
	}
	r = nodetest.Get(t, n, "/logstream/events?order=sideways", "")
	if r.Status != 400 || !strings.Contains(r.Body, "order='sideways' must be 'asc' or 'desc'") {
		t.Fatalf("order=sideways: %d %s", r.Status, r.Body)
	}
}

// TestOwnRoutes_UnknownParameter: lsnode's own routes refuse a parameter
// they do not take, naming it; the hub's routes keep reading their query
// as the hub does, ignoring it.
func TestOwnRoutes_UnknownParameter(t *testing.T) {
	n := htStart(t, nil)
	for _, path := range []string{"/logstream/events?bogus=1", "/logstream/events?limit=2&bogus=", "/lsnode/agents?bogus=1",
		"/readyz?bogus=1", "/lsnode/keys?bogus=1"} {
		r := nodetest.Get(t, n, path, "")
		if r.Status != 400 || !strings.Contains(r.Body, `"error": "unknown query parameter 'bogus': this route takes`) {
			t.Errorf("%s: %d %s; want 400 naming 'bogus'", path, r.Status, r.Body)
		}
	}
	for _, path := range []string{"/sync/version_vector?bogus=1", "/statusz?bogus=1", "/healthz?bogus=1"} {
		if r := nodetest.Get(t, n, path, ""); r.Status != 200 {
			t.Errorf("%s (a hub route): %d %s; want 200 as the hub answers", path, r.Status, r.Body)
		}
	}
	for _, path := range []string{"/logstream/events?limit=1&wait_ms=0&stream=a&order=asc", "/lsnode/agents?window=1m",
		"/readyz?max_lag_ops=-1"} {
		if r := nodetest.Get(t, n, path, ""); r.Status == 400 {
			t.Errorf("%s names only known parameters: %s", path, r.Body)
		}
	}
}

// TestOwnRoutes_IntegerText: an integer parameter of lsnode's own route
// that does not parse is named with its value, not with Python's int()
// text, which the hub-compatible routes keep.
func TestOwnRoutes_IntegerText(t *testing.T) {
	n := htStart(t, nil)
	r := nodetest.Get(t, n, "/logstream/events?limit=abc", "")
	if r.Status != 400 || r.Body != `{"error": "limit must be an integer, got 'abc'"}` {
		t.Fatalf("limit=abc: %d %s", r.Status, r.Body)
	}
	r = nodetest.Get(t, n, "/sync/ops?origin=rep_x&limit=abc", "")
	if r.Status != 400 || !strings.Contains(r.Body, "invalid literal for int() with base 10: 'abc'") {
		t.Fatalf("/sync/ops limit=abc (the hub's text): %d %s", r.Status, r.Body)
	}
}

// TestOwnRoutes_JSONRefusals: a refusal of the policy (here a missing
// token) is JSON on lsnode's own routes and the hub's HTML page on the
// hub's, with the same status.
func TestOwnRoutes_JSONRefusals(t *testing.T) {
	n := htStart(t, withToken)
	for _, path := range []string{"/lsnode/agents", "/logstream/events", "/lsnode/keys"} {
		r := nodetest.Get(t, n, path, "")
		if r.Status != 401 || r.Body != `{"error": "Unauthorized"}` || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s without a token: %d %q %s", path, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
	r := nodetest.Get(t, n, "/statusz", "")
	if r.Status != 401 || !strings.Contains(r.Body, "<title>Error response</title>") {
		t.Errorf("/statusz without a token (the hub's page): %d %s", r.Status, r.Body)
	}
}

// TestStream_BadLastEventIDNamesTheHeader: a Last-Event-ID the node does
// not hold is refused naming the header the client sent, not the
// since_event_id parameter it did not.
func TestStream_BadLastEventIDNamesTheHeader(t *testing.T) {
	n := htStart(t, nil)
	nodetest.Append(t, n.Store(), store.AppendInput{})
	r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/stream", Header: map[string]string{"Last-Event-ID": "evt_nope"}})
	if r.Status != 400 || !strings.Contains(r.Body, "Last-Event-ID header 'evt_nope' not found") || strings.Contains(r.Body, "since_event_id") {
		t.Fatalf("bad Last-Event-ID: %d %s", r.Status, r.Body)
	}
	r = nodetest.Get(t, n, "/logstream/stream?since_event_id="+url.QueryEscape("evt_nope"), "")
	if r.Status != 400 || !strings.Contains(r.Body, "since_event_id 'evt_nope' not found") {
		t.Fatalf("bad since_event_id: %d %s", r.Status, r.Body)
	}
}
