package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// TestMCPToolResults walks every tool through a small delegation and
// checks the payloads' shapes, key order and Python formatting.
func TestMCPToolResults(t *testing.T) {
	roster := pyjson.Object{{Key: "self", Value: pyjson.Object{{Key: "replica_id", Value: "rep_x"}}}, {Key: "peers", Value: []any{}}}
	h := newMCPHarness(t, Options{Roster: func(context.Context) (any, error) { return roster, nil }})

	put := h.call(toolArtifactPut, `{"kind":"patch","content":"diff --git a b","created_by":"a","metadata":{"branch":"main"}}`)
	if got := put.Keys(t); fmt.Sprint(got) != "[success artifact]" {
		t.Fatalf("artifact_put keys %v", got)
	}
	art := put.Payload(t)["artifact"].(map[string]any)
	if art["kind"] != "patch" || art["size_bytes"] != json.Number("14") || len(art["warnings"].([]any)) != 1 || art["content"] != nil {
		t.Fatalf("put record %v", art)
	}
	artID := art["id"].(string)

	app := h.call(toolEventAppend, `{"type":"task.request","stream":" s ","room":"r","from_agent":"a","to_agent":"b",
		"correlation_id":"c1","body":"héllo ✓","artifact_ids":["`+artID+`","`+artID+`"],"metadata":{"z":1,"a":[true,null]}}`)
	text := app.Text(t)
	if !strings.HasPrefix(text, "{\n  \"success\": true,\n  \"event\": {\n    \"id\": \"evt_") || !strings.Contains(text, `"body": "héllo ✓"`) ||
		!strings.Contains(text, "\"metadata\": {\n      \"a\": [\n        true,\n        null\n      ],\n      \"z\": 1\n    }") {
		t.Fatalf("event_append text is not Python's indent=2 rendering:\n%s", text)
	}
	ev := app.Payload(t)["event"].(map[string]any)
	if ev["stream"] != "s" || fmt.Sprint(ev["artifact_ids"]) != "["+artID+"]" || ev["topic"] != nil {
		t.Fatalf("event %v", ev)
	}
	id := ev["id"].(string)

	got := h.call(toolArtifactGet, `{"artifact_id":"`+artID+`"}`)
	if keys := got.Keys(t); fmt.Sprint(keys) != "[artifact]" {
		t.Fatalf("artifact_get keys %v", keys)
	}
	if a := got.Payload(t)["artifact"].(map[string]any); a["content"] != "diff --git a b" || a["metadata"].(map[string]any)["branch"] != "main" {
		t.Fatalf("artifact_get %v", a)
	}

	list := h.call(toolEventList, `{"to_agent":"b"}`)
	if keys := list.Keys(t); fmt.Sprint(keys) != "[events count cursor]" {
		t.Fatalf("event_list keys %v", keys)
	}
	noted := h.call(toolEventList, `{"from_agent":"zed"}`)
	if p := noted.Payload(t); p["count"] != json.Number("1") || p["note"] != fromAgentNote {
		t.Fatalf("from_agent must not filter and must add the note: %v", p)
	}
	if p := h.call(toolEventList, `{"from_agent":"zed","writer":"zed"}`).Payload(t); p["count"] != json.Number("0") || p["note"] != nil {
		t.Fatalf("writer filters and drops the note: %v", p)
	}

	ack := h.call(toolEventAck, `{"event_id":"`+id+`","from_agent":"b","status":"claimed","body":"on it"}`).Payload(t)["event"].(map[string]any)
	if ack["type"] != "event.ack" || ack["to_agent"] != "a" || ack["correlation_id"] != "c1" || ack["metadata"].(map[string]any)["ack_of"] != id {
		t.Fatalf("ack %v", ack)
	}
	owed := h.call(toolEventOwed, `{"agent":"b"}`)
	if keys := owed.Keys(t); fmt.Sprint(keys) != "[events count]" || owed.Payload(t)["count"] != json.Number("1") {
		t.Fatalf("owed before a terminal reply: %s", owed.Text(t))
	}

	patch := h.call(toolPatchSubmit, `{"content":"--- a\n+++ b\n","from_agent":"b","stream":"s","correlation_id":"c1","to_agent":"a"}`)
	if keys := patch.Keys(t); fmt.Sprint(keys) != "[success artifact event]" {
		t.Fatalf("patch_submit keys %v", keys)
	}
	pev := patch.Payload(t)["event"].(map[string]any)
	if pev["type"] != "patch.ready" || pev["status"] != "ready" || pev["room"] != "patches" {
		t.Fatalf("patch event %v", pev)
	}
	h.call(toolEventAck, `{"event_id":"`+id+`","from_agent":"b","status":"applied"}`)
	if p := h.call(toolEventOwed, `{"agent":"b"}`).Payload(t); p["count"] != json.Number("0") {
		t.Fatalf("owed after an applied ack: %v", p)
	}

	task := h.call(toolTaskCreate, `{"project":"LS Node","from_agent":"a","to_agent":"b","goal":"  Fix it  ","branch":"main","base_commit":"ABCDEF0","done":"tests pass"}`)
	if keys := task.Keys(t); fmt.Sprint(keys) != "[success task handoff]" {
		t.Fatalf("task_create keys %v", keys)
	}
	tp := task.Payload(t)
	tev := tp["task"].(map[string]any)
	if tev["stream"] != "project/ls_node" || tev["base_commit"] != "abcdef0" || !strings.Contains(tev["body"].(string), "  Fix it  ") ||
		!strings.HasPrefix(tev["correlation_id"].(string), "task_fix_it_") || tp["handoff"] == "" {
		t.Fatalf("task_create %v", tp)
	}

	if text := h.call(toolMeshPeers, `{}`).Text(t); text != "{\n  \"self\": {\n    \"replica_id\": \"rep_x\"\n  },\n  \"peers\": []\n}" {
		t.Fatalf("mesh_peers %q", text)
	}
}

func TestMCPPreview(t *testing.T) {
	h := newMCPHarness(t, Options{})
	body := strings.Repeat("ü", 250)
	h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"` + body + `"}`)
	h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"short"}`)
	events := h.call(toolEventList, `{"preview":true,"order":"ASC"}`).Payload(t)["events"].([]any)
	long, short := events[0].(map[string]any), events[1].(map[string]any)
	if long["body"] != strings.Repeat("ü", 200) || long["body_truncated"] != true || long["body_length"] != json.Number("250") {
		t.Fatalf("previewed long body: %v", long)
	}
	if short["body"] != "short" || short["body_truncated"] != nil {
		t.Fatalf("short body must be unchanged: %v", short)
	}
	if e := h.call(toolEventList, `{"preview":false}`).Payload(t)["events"].([]any)[1].(map[string]any); e["body"] != body {
		t.Fatalf("preview=false must return the full body")
	}
}

// TestMCPIdempotentRetry: a retry with the same key stores nothing and
// returns the original result marked duplicate.
func TestMCPIdempotentRetry(t *testing.T) {
	h := newMCPHarness(t, Options{})
	target := h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a","to_agent":"b"}`)["id"].(string)
	calls := []struct{ tool, args, record string }{
		{toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","idempotency_key":"k1"}`, "event"},
		{toolEventAck, `{"event_id":"` + target + `","from_agent":"b","status":"applied","idempotency_key":"k2"}`, "event"},
		{toolArtifactPut, `{"kind":"note","content":"n","created_by":"a","idempotency_key":"k3"}`, "artifact"},
		{toolPatchSubmit, `{"content":"d\n","from_agent":"a","stream":"s","idempotency_key":"k4"}`, "event"},
		{toolTaskCreate, `{"project":"p","from_agent":"a","to_agent":"b","goal":"g","branch":"m","base_commit":"abcdef0","done":"d","idempotency_key":"k5"}`, "task"},
	}
	for _, c := range calls {
		first := h.call(c.tool, c.args)
		retry := h.call(c.tool, c.args)
		p1, p2 := first.Payload(t), retry.Payload(t)
		if p1["duplicate"] != nil || p2["duplicate"] != true {
			t.Fatalf("%s: duplicate flags %v / %v", c.tool, p1["duplicate"], p2["duplicate"])
		}
		id1, id2 := p1[c.record].(map[string]any)["id"], p2[c.record].(map[string]any)["id"]
		if id1 != id2 {
			t.Fatalf("%s: retry returned %v, original %v", c.tool, id2, id1)
		}
		if keys := retry.Keys(t); keys[len(keys)-1] != "duplicate" {
			t.Fatalf("%s: duplicate must come last: %v", c.tool, keys)
		}
	}
	if p := h.call(toolEventList, `{"limit":500}`).Payload(t); p["count"] != json.Number("5") {
		t.Fatalf("retries stored events: %v", p["count"])
	}
}

// TestMCPCursorResume: the portable cursor returned by list resumes with
// exactly the events written after it, in arrival order.
func TestMCPCursorResume(t *testing.T) {
	h := newMCPHarness(t, Options{})
	h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"1"}`)
	cursor := h.call(toolEventList, `{}`).Payload(t)["cursor"].(string)
	h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"2"}`)
	h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"3"}`)
	p := h.call(toolEventList, `{"cursor":"`+cursor+`"}`).Payload(t)
	events := p["events"].([]any)
	if len(events) != 2 || events[0].(map[string]any)["body"] != "2" || events[1].(map[string]any)["body"] != "3" {
		t.Fatalf("resume from cursor: %v", p)
	}
	if p := h.call(toolEventList, `{"cursor":"`+p["cursor"].(string)+`"}`).Payload(t); p["count"] != json.Number("0") {
		t.Fatalf("a cursor after the last event returns nothing: %v", p)
	}
	if p := h.call(toolEventList, `{"cursor":"bogus"}`).Payload(t); !strings.HasPrefix(p["error"].(string), "cursor 'bogus' is not a valid lsnode cursor") {
		t.Fatalf("bad cursor: %v", p)
	}
	if p := h.call(toolEventList, `{"since_event_id":"evt_unheld"}`).Payload(t); !strings.HasPrefix(p["error"].(string), "since_event_id 'evt_unheld' not found") {
		t.Fatalf("unheld since_event_id: %v", p)
	}
}

// TestMCPAckTopic: an ack copies its target's topic when the argument is
// absent or null, and has none when it is empty, as the hub's "topic if
// topic is not None else the target's" gives.
func TestMCPAckTopic(t *testing.T) {
	h := newMCPHarness(t, Options{})
	target := h.appendEvent(`{"type":"task.request","stream":"s","room":"r","topic":"t1","from_agent":"a","to_agent":"b"}`)
	for _, tc := range []struct {
		topic string // the topic member, "" for none
		want  any
	}{
		{"", "t1"},
		{`,"topic":null`, "t1"},
		{`,"topic":""`, nil},
		{`,"topic":" x "`, "x"},
	} {
		p := h.call(toolEventAck, `{"event_id":"`+target["id"].(string)+`","from_agent":"b"`+tc.topic+`}`).Payload(t)
		ev, ok := p["event"].(map[string]any)
		if p["success"] != true || !ok {
			t.Fatalf("ack with %q: %v", tc.topic, p)
		}
		if ev["topic"] != tc.want {
			t.Errorf("ack with %q: topic %v, want %v", tc.topic, ev["topic"], tc.want)
		}
	}
}
