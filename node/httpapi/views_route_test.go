package httpapi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node/auth"
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

// TestCyclesRoute: /lsnode/cycles lists the wait-for cycles in wait
// order, each edge with its asker, the agent that owes it, the oldest
// ask and its age, among the asks the caller may read: pi's agent token
// sees the cycle of its own names only, not one it cannot read an ask
// of. A log without the view answers 501.
func TestCyclesRoute(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	wall := hlc.NewManualClock(t0)
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir(), Wall: wall})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	tokens, err := auth.OpenTokens(nodetest.WriteTokensFile(t, nodetest.TokensFile), nodetest.SharedToken)
	if err != nil {
		t.Fatal(err)
	}
	n := htStart(t, func(o *Options) {
		o.Store, o.Wall, o.Auth = st, wall, auth.NewAuthenticator(nodetest.SharedToken, tokens)
	})
	ask := func(from, to string) string {
		wall.Advance(time.Minute)
		return nodetest.Append(t, st, store.AppendInput{FromAgent: from, ToAgent: to}).ID
	}
	annBen, benCat, catAnn := ask("ann", "ben"), ask("ben", "cat"), ask("cat", "ann")
	piA, piB, piA2 := ask("pi-a", "pi-b"), ask("pi-b", "pi-a"), ask("pi-a", "pi-b")
	wall.Set(t0.Add(time.Hour))

	edge := func(from, to string, count int, age int, asks ...string) string {
		return fmt.Sprintf(`{"from": "%s", "to": "%s", "count": %d, "asks": ["%s"], "oldest_age_s": %d}`,
			from, to, count, strings.Join(asks, `", "`), age)
	}
	piCycle := `{"agents": ["pi-a", "pi-b"], "edges": [` + edge("pi-a", "pi-b", 2, 3360, piA, piA2) + ", " + edge("pi-b", "pi-a", 1, 3300, piB) + "]}"
	threeCycle := `{"agents": ["ann", "ben", "cat"], "edges": [` + edge("ann", "ben", 1, 3540, annBen) + ", " +
		edge("ben", "cat", 1, 3480, benCat) + ", " + edge("cat", "ann", 1, 3420, catAnn) + "]}"
	for _, tc := range []struct{ path, token, want string }{
		{"/lsnode/cycles", nodetest.SharedToken, `{"cycles": [` + piCycle + ", " + threeCycle + `], "count": 2, "truncated": false}`},
		{"/lsnode/cycles?limit=1", nodetest.AdminToken, `{"cycles": [` + piCycle + `], "count": 1, "truncated": true}`},
		{"/lsnode/cycles", nodetest.AgentToken, `{"cycles": [` + piCycle + `], "count": 1, "truncated": false}`},
	} {
		if r := nodetest.Get(t, n, tc.path, tc.token); r.Status != 200 || r.Body != tc.want {
			t.Errorf("%s as %s: %d\n%s\nwant\n%s", tc.path, tc.token, r.Status, r.Body, tc.want)
		}
	}
	// Answered, an ask leaves its cycle.
	if _, err := st.Ack(context.Background(), store.AckInput{EventID: piB, FromAgent: "pi-a", Status: "applied"}); err != nil {
		t.Fatal(err)
	}
	if r := nodetest.Get(t, n, "/lsnode/cycles", nodetest.AgentToken); r.Body != `{"cycles": [], "count": 0, "truncated": false}` {
		t.Errorf("after pi-a answered: %s", r.Body)
	}
	for path, want := range map[string]string{
		"/lsnode/cycles?limit=0":   "limit must be a positive integer",
		"/lsnode/cycles?limit=x":   "limit must be an integer, got 'x'",
		"/lsnode/cycles?agent=ann": "unknown query parameter 'agent': this route takes",
	} {
		if r := nodetest.Get(t, n, path, nodetest.SharedToken); r.Status != 400 || !strings.Contains(r.Body, want) {
			t.Errorf("%s: %d %s; want 400 with %q", path, r.Status, r.Body, want)
		}
	}

	plain := htStart(t, func(o *Options) { o.Store = plainLog{nodetest.OpenStore(t)} })
	if r := nodetest.Get(t, plain, "/lsnode/cycles", ""); r.Status != 501 || !strings.Contains(r.Body, "the wait-for cycles view is not available on this log") {
		t.Errorf("without the view: %d %s", r.Status, r.Body)
	}
}
