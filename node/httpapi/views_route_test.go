package httpapi

import (
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// TestViewRoutes: /lsnode/awaiting and /logstream/search answer their
// views' payloads, refuse bad arguments with 400 naming them, and refuse
// parameters they do not take.
func TestViewRoutes(t *testing.T) {
	n := htStart(t, nil)
	ask := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "eve", Body: "rotate the keys"})

	p := nodetest.JSON(t, nodetest.Get(t, n, "/lsnode/awaiting?agent=boss&stream=project/x&limit=5", ""))
	asks, _ := p["asks"].([]any)
	if p["count"] != 1.0 || len(asks) != 1 {
		t.Fatalf("awaiting: %v", p)
	}
	if a := asks[0].(map[string]any); a["id"] != ask.ID || a["addressee"] != "eve" || a["claimed_by"] != nil || a["claim_conflict"] != false {
		t.Fatalf("awaited ask %v", a)
	}
	if p := nodetest.JSON(t, nodetest.Get(t, n, "/lsnode/awaiting?agent=boss&older_than=1h", "")); p["count"] != 0.0 {
		t.Fatalf("awaiting older than an hour: %v", p)
	}
	p = nodetest.JSON(t, nodetest.Get(t, n, "/logstream/search?q=rotate&order=hlc", ""))
	if events, _ := p["events"].([]any); p["count"] != 1.0 || len(events) != 1 || events[0].(map[string]any)["id"] != ask.ID || p["cursor"] == nil {
		t.Fatalf("search: %v", p)
	}
	if p := nodetest.JSON(t, nodetest.Get(t, n, "/logstream/search?q=rotate&from_agent=eve", "")); p["count"] != 0.0 {
		t.Fatalf("search from_agent filters by writer: %v", p)
	}

	for path, want := range map[string]string{
		"/lsnode/awaiting":                         "agent must be a non-empty string",
		"/lsnode/awaiting?agent=boss&older_than=x": "older_than='x' is not a non-negative duration such as 30m or 2h",
		"/lsnode/awaiting?agent=boss&limit=-1":     "limit must be",
		"/logstream/search?q=%22open":              `search query '\"open' is malformed: a quote is not closed`,
		"/logstream/search?q=x&order=sideways":     "order='sideways' must be 'rank' or 'hlc'",
		"/logstream/search":                        "query must be a non-empty string",
		"/lsnode/awaiting?agent=boss&bogus=1":      "unknown query parameter 'bogus': this route takes",
		"/logstream/search?q=x&writer=eve":         "unknown query parameter 'writer': this route takes",
	} {
		if r := nodetest.Get(t, n, path, ""); r.Status != 400 || !strings.Contains(r.Body, want) {
			t.Errorf("%s: %d %s; want 400 with %q", path, r.Status, r.Body, want)
		}
	}
}

// TestViewRoutes_Unavailable: a log without the views answers their
// routes 501, never an empty answer.
func TestViewRoutes_Unavailable(t *testing.T) {
	st := nodetest.OpenStore(t)
	n := htStart(t, func(o *Options) { o.Store = plainLog{st} })
	for path, want := range map[string]string{
		"/lsnode/awaiting?agent=boss": "the awaiting view is not available on this log",
		"/logstream/search?q=x":       "search is not available on this log",
	} {
		if r := nodetest.Get(t, n, path, ""); r.Status != 501 || !strings.Contains(r.Body, want) {
			t.Errorf("%s: %d %s; want 501 with %q", path, r.Status, r.Body, want)
		}
	}
}

// plainLog is a log with none of the coordination views.
type plainLog struct{ Log }
