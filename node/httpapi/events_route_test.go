package httpapi

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

func eventIDs(t *testing.T, page map[string]any) []string {
	t.Helper()
	evs := page["events"].([]any)
	if int(page["count"].(float64)) != len(evs) {
		t.Fatalf("count %v but %d events", page["count"], len(evs))
	}
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.(map[string]any)["id"].(string)
	}
	return ids
}

func TestEvents_PagesFollowTheCursor(t *testing.T) {
	n := htStart(t, nil)
	var all []string
	for i := 0; i < 5; i++ {
		all = append(all, nodetest.Append(t, n.Store(), store.AppendInput{}).ID)
	}
	page := nodetest.JSON(t, nodetest.Get(t, n, "/logstream/events?limit=2", ""))
	if got := eventIDs(t, page); strings.Join(got, ",") != strings.Join(all[:2], ",") {
		t.Fatalf("first page %v, want the two oldest %v", got, all[:2])
	}
	if _, ok := page["timed_out"]; ok {
		t.Fatal("timed_out present without wait_ms")
	}
	var got []string
	cursor := page["cursor"].(string)
	for {
		p := nodetest.JSON(t, nodetest.Get(t, n, "/logstream/events?limit=2&cursor="+url.QueryEscape(cursor), ""))
		ids := eventIDs(t, p)
		if len(ids) == 0 {
			break
		}
		got = append(got, ids...)
		cursor = p["cursor"].(string)
	}
	if strings.Join(got, ",") != strings.Join(all[2:], ",") {
		t.Fatalf("cursor pages %v, want %v", got, all[2:])
	}
	p := nodetest.JSON(t, nodetest.Get(t, n, "/logstream/events?since_event_id="+all[3], ""))
	if ids := eventIDs(t, p); len(ids) != 1 || ids[0] != all[4] {
		t.Fatalf("since_event_id page %v", ids)
	}
}

func TestEvents_Filters(t *testing.T) {
	n := htStart(t, nil)
	nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "alice"})
	bob := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "bob", Topic: "auth"})
	for _, q := range []string{"from_agent=bob", "writer=bob", "writer=bob&from_agent=alice", "topic=auth"} {
		if ids := eventIDs(t, nodetest.JSON(t, nodetest.Get(t, n, "/logstream/events?"+q, ""))); len(ids) != 1 || ids[0] != bob.ID {
			t.Errorf("%s: %v", q, ids)
		}
	}
}

func TestEvents_LongPoll(t *testing.T) {
	n := htStart(t, nil)
	first := nodetest.Append(t, n.Store(), store.AppendInput{})
	done := make(chan nodetest.Resp, 1)
	go func() { done <- nodetest.Get(t, n, "/logstream/events?wait_ms=10000&since_event_id="+first.ID, "") }()
	testwait.Until(t, 10*time.Second, "the long poll to wait", func() bool {
		return nodetest.Metric(t, n.reg, "lsnode_http_long_polls") == 1
	})
	e := nodetest.Append(t, n.Store(), store.AppendInput{})
	r := <-done
	p := nodetest.JSON(t, r)
	if ids := eventIDs(t, p); len(ids) != 1 || ids[0] != e.ID || p["timed_out"] != false {
		t.Fatalf("long poll answer %v", p)
	}
	start := time.Now()
	p = nodetest.JSON(t, nodetest.Get(t, n, "/logstream/events?wait_ms=30&since_event_id="+e.ID, ""))
	if len(eventIDs(t, p)) != 0 || p["timed_out"] != true || time.Since(start) < 25*time.Millisecond {
		t.Fatalf("timeout answer %v after %v", p, time.Since(start))
	}
	if p["cursor"] == "" {
		t.Fatal("a timed-out page still carries a cursor")
	}
}

func TestEvents_LongPollEndsAtShutdown(t *testing.T) {
	n := htStart(t, nil)
	e := nodetest.Append(t, n.Store(), store.AppendInput{})
	done := make(chan nodetest.Resp, 1)
	go func() { done <- nodetest.Get(t, n, "/logstream/events?wait_ms=300000&since_event_id="+e.ID, "") }()
	testwait.Until(t, 10*time.Second, "the long poll to wait", func() bool { return nodetest.Metric(t, n.reg, "lsnode_http_long_polls") == 1 })
	shut := make(chan error, 1)
	go func() { shut <- n.Shutdown(t.Context()) }()
	select {
	case r := <-done:
		if p := nodetest.JSON(t, r); p["timed_out"] != true {
			t.Fatalf("drained long poll %d %v", r.Status, p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("long poll outlived shutdown")
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
}

func TestEvents_Errors(t *testing.T) {
	n := htStart(t, nil)
	cases := map[string]string{
		"limit=0":                 "limit must be a positive integer",
		"limit=abc":               "limit must be an integer, got 'abc'",
		"wait_ms=-1":              "wait_ms must be a non-negative integer",
		"wait_ms=1.5":             "wait_ms must be an integer, got '1.5'",
		"type=BAD":                "type='BAD' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)",
		"since_created_at=2026-1": "since_created_at='2026-1' is not a valid ISO-8601 date or UTC datetime (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)",
	}
	for q, want := range cases {
		r := nodetest.Get(t, n, "/logstream/events?"+q, "")
		if r.Status != 400 || nodetest.JSON(t, r)["error"] != want {
			t.Errorf("%s: %d %s, want %q", q, r.Status, r.Body, want)
		}
	}
	r := nodetest.Get(t, n, "/logstream/events?since_event_id=evt_nope", "")
	if r.Status != 400 || !strings.HasPrefix(nodetest.JSON(t, r)["error"].(string), "since_event_id 'evt_nope' not found") {
		t.Errorf("unknown cursor: %d %s", r.Status, r.Body)
	}
}
