package node

import (
	"net/url"
	"strings"
	"testing"
	"time"

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
		all = append(all, htAppend(t, n, store.AppendInput{}).ID)
	}
	page := htJSON(t, htGet(t, n, "/logstream/events?limit=2", ""))
	if got := eventIDs(t, page); strings.Join(got, ",") != strings.Join(all[:2], ",") {
		t.Fatalf("first page %v, want the two oldest %v", got, all[:2])
	}
	if _, ok := page["timed_out"]; ok {
		t.Fatal("timed_out present without wait_ms")
	}
	var got []string
	cursor := page["cursor"].(string)
	for {
		p := htJSON(t, htGet(t, n, "/logstream/events?limit=2&cursor="+url.QueryEscape(cursor), ""))
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
	p := htJSON(t, htGet(t, n, "/logstream/events?since_event_id="+all[3], ""))
	if ids := eventIDs(t, p); len(ids) != 1 || ids[0] != all[4] {
		t.Fatalf("since_event_id page %v", ids)
	}
}

func TestEvents_Filters(t *testing.T) {
	n := htStart(t, nil)
	htAppend(t, n, store.AppendInput{FromAgent: "alice"})
	bob := htAppend(t, n, store.AppendInput{FromAgent: "bob", Topic: "auth"})
	for _, q := range []string{"from_agent=bob", "writer=bob", "writer=bob&from_agent=alice", "topic=auth"} {
		if ids := eventIDs(t, htJSON(t, htGet(t, n, "/logstream/events?"+q, ""))); len(ids) != 1 || ids[0] != bob.ID {
			t.Errorf("%s: %v", q, ids)
		}
	}
}

func TestEvents_LongPoll(t *testing.T) {
	n := htStart(t, nil)
	first := htAppend(t, n, store.AppendInput{})
	done := make(chan htResp, 1)
	go func() { done <- htGet(t, n, "/logstream/events?wait_ms=10000&since_event_id="+first.ID, "") }()
	htEventually(t, "the long poll to wait", func() bool {
		return htMetric(t, n, "lsnode_http_long_polls") == 1
	})
	e := htAppend(t, n, store.AppendInput{})
	r := <-done
	p := htJSON(t, r)
	if ids := eventIDs(t, p); len(ids) != 1 || ids[0] != e.ID || p["timed_out"] != false {
		t.Fatalf("long poll answer %v", p)
	}
	start := time.Now()
	p = htJSON(t, htGet(t, n, "/logstream/events?wait_ms=30&since_event_id="+e.ID, ""))
	if len(eventIDs(t, p)) != 0 || p["timed_out"] != true || time.Since(start) < 25*time.Millisecond {
		t.Fatalf("timeout answer %v after %v", p, time.Since(start))
	}
	if p["cursor"] == "" {
		t.Fatal("a timed-out page still carries a cursor")
	}
}

func TestEvents_LongPollEndsAtShutdown(t *testing.T) {
	n := htStart(t, nil)
	e := htAppend(t, n, store.AppendInput{})
	done := make(chan htResp, 1)
	go func() { done <- htGet(t, n, "/logstream/events?wait_ms=300000&since_event_id="+e.ID, "") }()
	htEventually(t, "the long poll to wait", func() bool { return htMetric(t, n, "lsnode_http_long_polls") == 1 })
	shut := make(chan error, 1)
	go func() { shut <- n.Shutdown(t.Context()) }()
	select {
	case r := <-done:
		if p := htJSON(t, r); p["timed_out"] != true {
			t.Fatalf("drained long poll %d %v", r.status, p)
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
		"limit=abc":               "invalid literal for int() with base 10: 'abc'",
		"wait_ms=-1":              "wait_ms must be a non-negative integer",
		"wait_ms=1.5":             "invalid literal for int() with base 10: '1.5'",
		"type=BAD":                "type='BAD' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)",
		"since_created_at=2026-1": "since_created_at='2026-1' is not a valid ISO-8601 date or UTC datetime (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)",
	}
	for q, want := range cases {
		r := htGet(t, n, "/logstream/events?"+q, "")
		if r.status != 400 || htJSON(t, r)["error"] != want {
			t.Errorf("%s: %d %s, want %q", q, r.status, r.body, want)
		}
	}
	r := htGet(t, n, "/logstream/events?since_event_id=evt_nope", "")
	if r.status != 400 || !strings.HasPrefix(htJSON(t, r)["error"].(string), "since_event_id 'evt_nope' not found") {
		t.Errorf("unknown cursor: %d %s", r.status, r.body)
	}
}
