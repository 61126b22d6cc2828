package httpapi

import (
	"fmt"
	"net/url"
	"os"
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

// TestOwnRoutes_UnknownParameter: every own route of the routing table
// refuses a parameter it does not take, naming it; the hub's routes keep
// reading their query as the hub does, ignoring it.
func TestOwnRoutes_UnknownParameter(t *testing.T) {
	n := htStart(t, nil)
	var requests []ownRequest
	for _, rq := range ownRequests(t, n.Server) {
		requests = append(requests, ownRequest{rq.method, rq.path + "?bogus=1"})
	}
	for _, rq := range append(requests, ownRequest{"GET", "/logstream/events?limit=2&bogus="}) {
		r := nodetest.Do(t, n, nodetest.Req{Method: rq.method, Path: rq.path, Body: "{}"})
		if r.Status != 400 || !strings.Contains(r.Body, `"error": "unknown query parameter 'bogus': this route takes`) {
			t.Errorf("%s %s: %d %s; want 400 naming 'bogus'", rq.method, rq.path, r.Status, r.Body)
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

// ownRequest is one method and path of an own route of the table.
type ownRequest struct{ method, path string }

// ownRequests lists every method and path the routing table marks own,
// so a route added to the table is covered by the tests that loop on it.
func ownRequests(t *testing.T, s *Server) []ownRequest {
	t.Helper()
	var out []ownRequest
	for method, table := range map[string]map[string]route{"GET": s.getRoutes(), "POST": s.postRoutes()} {
		for path, rt := range table {
			if rt.own {
				out = append(out, ownRequest{method, path})
			}
		}
	}
	slices.SortFunc(out, func(a, b ownRequest) int { return strings.Compare(a.path+a.method, b.path+b.method) })
	if len(out) < 9 {
		t.Fatalf("the routing table marks %d requests own, want at least the 9 documented", len(out))
	}
	return out
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

// TestOwnRoutes_JSONRefusals: on every own route of the routing table, a
// refusal of the policy (here a missing token) and a method the path does
// not take (405 with Allow) are JSON, and so is an unknown path under
// /lsnode/; the hub's routes keep the hub's HTML pages with the hub's
// statuses.
func TestOwnRoutes_JSONRefusals(t *testing.T) {
	n := htStart(t, withToken)
	bearer := map[string]string{"Authorization": "Bearer " + nodetest.SharedToken}
	isJSON := func(r nodetest.Resp) bool { return strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") }
	allow := map[string][]string{}
	for _, rq := range ownRequests(t, n.Server) {
		allow[rq.path] = append(allow[rq.path], rq.method)
		if !n.getRoutes()[rq.path].auth && rq.method == "GET" {
			continue
		}
		r := nodetest.Do(t, n, nodetest.Req{Method: rq.method, Path: rq.path, Body: "{}"})
		if r.Status != 401 || r.Body != `{"error": "Unauthorized"}` || !isJSON(r) {
			t.Errorf("%s %s without a token: %d %q %s", rq.method, rq.path, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
	}
	for path, methods := range allow {
		want := strings.Join(methods, ", ")
		for _, method := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"} {
			if slices.Contains(methods, method) {
				continue
			}
			r := nodetest.Do(t, n, nodetest.Req{Method: method, Path: path + "?bogus=1", Header: bearer})
			body := fmt.Sprintf(`{"error": "method '%s' not allowed on %s: it takes %s"}`, method, path, want)
			if method == "HEAD" {
				body = ""
			}
			if r.Status != 405 || r.Header.Get("Allow") != want || !isJSON(r) || r.Body != body {
				t.Errorf("%s %s: %d Allow %q %q %s; want 405 Allow %q %s", method, path, r.Status, r.Header.Get("Allow"),
					r.Header.Get("Content-Type"), r.Body, want, body)
			}
		}
	}
	for _, rq := range []ownRequest{{"GET", "/lsnode/nothing"}, {"POST", "/lsnode/nothing"}, {"DELETE", "/lsnode/agents/"}} {
		for _, h := range []map[string]string{nil, bearer} {
			r := nodetest.Do(t, n, nodetest.Req{Method: rq.method, Path: rq.path, Header: h})
			if r.Status != 404 || r.Body != `{"error": "no route `+rq.path+`"}` || !isJSON(r) {
				t.Errorf("%s %s: %d %q %s; want a 404 JSON", rq.method, rq.path, r.Status, r.Header.Get("Content-Type"), r.Body)
			}
		}
	}
	for _, tc := range []struct {
		method, path string
		header       map[string]string
		status       int
	}{
		{"GET", "/statusz", nil, 401},
		{"POST", "/statusz", nil, 401},
		{"POST", "/statusz", bearer, 404},
		{"PUT", "/statusz", bearer, 501},
		{"DELETE", "/logstream/stream", bearer, 501},
		{"POST", "/healthz", bearer, 404},
		{"GET", "/lsnode", nil, 404},
		{"GET", "/logstream/nothing", nil, 404},
	} {
		r := nodetest.Do(t, n, nodetest.Req{Method: tc.method, Path: tc.path, Header: tc.header})
		if r.Status != tc.status || !strings.Contains(r.Body, "<title>Error response</title>") || r.Header.Get("Allow") != "" {
			t.Errorf("%s %s (the hub's page): %d %s", tc.method, tc.path, r.Status, r.Body)
		}
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

// TestOwnRoutes_Documented: docs/compatibility.md's paragraph on the
// strict own routes names every path the routing table marks own.
func TestOwnRoutes_Documented(t *testing.T) {
	raw, err := os.ReadFile("../../docs/compatibility.md")
	if err != nil {
		t.Fatal(err)
	}
	_, para, ok := strings.Cut(string(raw), "- **lsnode's own routes are strict.**")
	para, _, _ = strings.Cut(para, "The hub's routes")
	if !ok {
		t.Fatal(`docs/compatibility.md has no "lsnode's own routes are strict" paragraph`)
	}
	para = strings.Join(strings.Fields(para), " ")
	for _, rq := range ownRequests(t, New(testConfig(t))) {
		if !strings.Contains(para, "`"+rq.path+"`") {
			t.Errorf("docs/compatibility.md's own routes do not name %s", rq.path)
		}
	}
}
