package mcp

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestMCPAwaitingAndSearch: awaiting answers the asker's open asks with
// the view's members and empties once the addressee closes the thread;
// search pages as a list does and refuses a malformed query naming it
// (Text checks that isError is set on every refusal).
func TestMCPAwaitingAndSearch(t *testing.T) {
	h := newMCPHarness(t, Options{})
	ask := h.call(toolEventAppend, `{"type":"task.request","stream":"s","room":"r","from_agent":"a","to_agent":"b","correlation_id":"c1","body":"rotate the keys"}`)
	id := ask.Payload(t)["event"].(map[string]any)["id"].(string)

	aw := h.call(toolAwaiting, `{"agent":"a"}`)
	if keys := aw.Keys(t); fmt.Sprint(keys) != "[asks count]" {
		t.Fatalf("awaiting keys %v", keys)
	}
	asks := aw.Payload(t)["asks"].([]any)
	if len(asks) != 1 {
		t.Fatalf("awaiting: %s", aw.Text(t))
	}
	got := asks[0].(map[string]any)
	if got["id"] != id || got["addressee"] != "b" || got["last_heard"] != nil || got["claimed_by"] != nil ||
		got["claimed_from"] != nil || got["claim_conflict"] != false || got["age_s"] == nil || got["body"] != "rotate the keys" {
		t.Fatalf("awaited ask %v", got)
	}
	h.call(toolEventAck, `{"event_id":"`+id+`","from_agent":"b","status":"claimed"}`)
	got = h.call(toolAwaiting, `{"agent":"a"}`).Payload(t)["asks"].([]any)[0].(map[string]any)
	if got["claimed_by"] != "b" || got["claimed_from"] == nil || got["status"] != "claimed" || got["last_heard"] == nil {
		t.Fatalf("claimed ask %v", got)
	}
	for args, n := range map[string]string{`{"agent":"a","older_than":"1h"}`: "0", `{"agent":"nobody"}`: "0", `{"agent":"a","stream":"s"}`: "1"} {
		if p := h.call(toolAwaiting, args).Payload(t); p["count"] != json.Number(n) {
			t.Errorf("awaiting %s: %v, want %s", args, p, n)
		}
	}
	if r := h.call(toolAwaiting, `{"agent":"a","older_than":"soon"}`); r.Error != nil ||
		r.Payload(t)["error"] != "older_than='soon' is not a non-negative duration such as 30m or 2h" {
		t.Errorf("bad older_than: %s", r.Text(t))
	}
	h.call(toolEventAck, `{"event_id":"`+id+`","from_agent":"b","status":"applied"}`)
	if p := h.call(toolAwaiting, `{"agent":"a"}`).Payload(t); p["count"] != json.Number("0") {
		t.Fatalf("awaiting after an applied ack: %v", p)
	}

	found := h.call(toolSearch, `{"query":"rotate","stream":"s"}`)
	if keys := found.Keys(t); fmt.Sprint(keys) != "[events count cursor]" || found.Payload(t)["count"] != json.Number("1") {
		t.Fatalf("search: %s", found.Text(t))
	}
	if p := h.call(toolSearch, `{"query":"rotate","from_agent":"b"}`).Payload(t); p["count"] != json.Number("0") {
		t.Fatalf("search from_agent filters by writer: %v", p)
	}
	if p := h.call(toolSearch, `{"query":"rotate","order":"hlc","limit":1}`).Payload(t); p["count"] != json.Number("1") {
		t.Fatalf("search in hlc order: %v", p)
	}
	for args, want := range map[string]string{
		`{"query":"\"open"}`:               `search query '"open' is malformed: a quote is not closed`,
		`{"query":"x","order":"sideways"}`: "order='sideways' must be 'rank' or 'hlc'",
		`{"query":" "}`:                    "query must be a non-empty string",
	} {
		if r := h.call(toolSearch, args); r.Error != nil || r.Payload(t)["error"] != want {
			t.Errorf("search %s: %s, want %q", args, r.Text(t), want)
		}
	}
}
