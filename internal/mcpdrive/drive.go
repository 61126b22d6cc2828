package mcpdrive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// structuredSince is the first protocol version whose results carry
// structured content.
const structuredSince = "2025-06-18"

// Tool names, as the hub spells them.
var toolNames = []string{
	"mempalace_artifact_get", "mempalace_artifact_put", "mempalace_event_ack", "mempalace_event_append",
	"mempalace_event_awaiting", "mempalace_event_list", "mempalace_event_owed", "mempalace_event_search",
	"mempalace_event_wait", "mempalace_mesh_peers",
	"mempalace_patch_submit", "mempalace_task_create",
}

// resourceTemplates are the node's resource templates, as
// resources/templates/list orders them.
var resourceTemplates = []string{
	"lsnode://agents/{agent}/owed", "lsnode://artifacts/{artifact_id}",
	"lsnode://events/{event_id}", "lsnode://threads/{correlation_id}",
}

// driver runs the scenario of one client beside the bare client.
type driver struct {
	t       testing.TB
	ctx     context.Context
	c, bare Client
	// structured: the client's era has output schemas and structured
	// content.
	structured bool
	schemas    map[string]*jsonschema.Resolved
	prefix     string // keeps this client's streams and agents apart
}

// Drive runs every tool, every resource and every failure path through c
// and checks each answer; bare is the hub's bare client of the same node,
// whose text for the same call c's text must equal. wantVersion is the
// protocol version c must have agreed on. Each client works on streams
// and agents of its own, so clients may share a node.
func Drive(ctx context.Context, t testing.TB, c, bare Client, wantVersion string) {
	t.Helper()
	if c.Version() != wantVersion {
		t.Fatalf("%s: protocol version %q, want %q", c.Name(), c.Version(), wantVersion)
	}
	d := &driver{t: t, ctx: ctx, c: c, bare: bare, structured: wantVersion >= structuredSince,
		schemas: map[string]*jsonschema.Resolved{}, prefix: strings.NewReplacer("/", "-", " ", "-", ".", "-").Replace(c.Name())}
	d.tools()
	d.successes()
	d.refusals()
	d.rpcErrors()
	d.resources()
}

func (d *driver) fatalf(format string, args ...any) {
	d.t.Helper()
	d.t.Fatalf("%s: %s", d.c.Name(), fmt.Sprintf(format, args...))
}

// tools checks tools/list: every tool, with an output schema exactly in
// the eras that have them.
func (d *driver) tools() {
	d.t.Helper()
	tools, err := d.c.Tools(d.ctx)
	if err != nil {
		d.fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
		if (tool.OutputSchema != nil) != d.structured {
			d.fatalf("%s: output schema %s in era %q", tool.Name, tool.OutputSchema, d.c.Version())
		}
		if tool.OutputSchema == nil {
			continue
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(tool.OutputSchema, &s); err != nil {
			d.fatalf("%s: output schema: %v", tool.Name, err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			d.fatalf("%s: output schema: %v", tool.Name, err)
		}
		d.schemas[tool.Name] = resolved
	}
	slices.Sort(names)
	if !slices.Equal(names, toolNames) {
		d.fatalf("tools/list %v", names)
	}
}

// call runs one tool and checks the result (check); it returns the
// result's payload.
func (d *driver) call(tool string, args map[string]any) (Result, map[string]any) {
	d.t.Helper()
	res, err := d.c.Call(d.ctx, tool, args)
	if err != nil {
		d.fatalf("%s %v: %v", tool, args, err)
	}
	return res, d.check(tool, res)
}

// check holds a result to the era's promises: isError exactly on a
// refusal; structured content equal to the text and valid against the
// output schema in the eras that have them (Check), none in the others.
func (d *driver) check(tool string, res Result) map[string]any {
	d.t.Helper()
	if d.structured {
		return Check(d.t, d.schemas[tool], d.c.Name()+": "+tool, res)
	}
	payload := checkIsError(d.t, d.c.Name()+": "+tool, res)
	if res.Structured != nil {
		d.fatalf("%s: structured content %s in era %q", tool, res.Structured, d.c.Version())
	}
	return payload
}

// Check holds a result of an era with output schemas to its promises:
// isError exactly on a refusal, structured content equal to the text and
// valid against schema, the tool's output schema. what names the call in
// failures. It returns the text's payload.
func Check(t testing.TB, schema *jsonschema.Resolved, what string, res Result) map[string]any {
	t.Helper()
	payload := checkIsError(t, what, res)
	if res.Structured == nil {
		t.Fatalf("%s: no structured content", what)
	}
	if s := decode(t, string(res.Structured)); !reflect.DeepEqual(s, payload) {
		t.Fatalf("%s: structured content %s is not the text %s", what, res.Structured, res.Text)
	}
	var instance any
	_ = json.Unmarshal(res.Structured, &instance) // decoded above
	if err := schema.Validate(instance); err != nil {
		t.Fatalf("%s: structured content %s against the output schema: %v", what, res.Structured, err)
	}
	return payload
}

// checkIsError requires isError exactly on a refusal and returns the
// text's payload.
func checkIsError(t testing.TB, what string, res Result) map[string]any {
	t.Helper()
	payload := decode(t, res.Text)
	if refused := payload["error"] != nil || payload["success"] == false; res.IsError != refused {
		t.Fatalf("%s: isError %v on %s", what, res.IsError, res.Text)
	}
	return payload
}

// sameAsBare requires c's text of a read to be the bare client's text of
// the same call, run now.
func (d *driver) sameAsBare(tool string, args map[string]any, res Result) {
	d.t.Helper()
	want, err := d.bare.Call(d.ctx, tool, args)
	if err != nil {
		d.fatalf("bare %s: %v", tool, err)
	}
	if res.Text != want.Text || res.IsError != want.IsError {
		d.fatalf("%s: text\n%s\nthe hub's (bare) text\n%s", tool, res.Text, want.Text)
	}
}

// sameAsBareRetry requires c's text of a write to be the original the
// bare client's retry with the same idempotency key answers: the hub's
// text of the write, with "duplicate": true added.
func (d *driver) sameAsBareRetry(tool string, args map[string]any, res Result) {
	d.t.Helper()
	retry, err := d.bare.Call(d.ctx, tool, args)
	if err != nil {
		d.fatalf("bare retry of %s: %v", tool, err)
	}
	if want := strings.Replace(retry.Text, ",\n  \"duplicate\": true", "", 1); res.Text != want || retry.Text == want {
		d.fatalf("%s: text\n%s\nthe bare retry's original\n%s", tool, res.Text, retry.Text)
	}
}

// successes runs every tool once with valid arguments, each call using
// what earlier ones stored.
func (d *driver) successes() {
	d.t.Helper()
	p := d.prefix
	stream, writer, worker, thread := "s/"+p, p+"-a", p+"-b", p+"-thread"
	put := map[string]any{"kind": "note", "content": "n <&> \u2028 é", "created_by": writer, "idempotency_key": p + "-art"}
	res, out := d.call("mempalace_artifact_put", put)
	d.sameAsBareRetry("mempalace_artifact_put", put, res)
	artID := out["artifact"].(map[string]any)["id"].(string)

	appendArgs := map[string]any{"type": "task.request", "stream": stream, "room": "r", "from_agent": writer, "to_agent": worker,
		"correlation_id": thread, "artifact_ids": []string{artID}, "metadata": map[string]any{"k": 1, "html": "<b>"},
		"body": "do <it> & \u2028 now", "idempotency_key": p + "-once"}
	res, out = d.call("mempalace_event_append", appendArgs)
	d.sameAsBareRetry("mempalace_event_append", appendArgs, res)
	eventID := out["event"].(map[string]any)["id"].(string)

	reads := []struct {
		tool  string
		args  map[string]any
		count float64 // -1: no count
	}{
		{"mempalace_artifact_get", map[string]any{"artifact_id": artID}, -1},
		{"mempalace_event_list", map[string]any{"stream": stream, "limit": 10, "order": "asc"}, 1},
		{"mempalace_event_list", map[string]any{"to_agent": worker, "preview": true, "from_agent": writer}, 1},
		{"mempalace_event_wait", map[string]any{"stream": stream, "to_agent": worker, "timeout_ms": 1000}, 1},
		{"mempalace_event_wait", map[string]any{"stream": stream, "to_agent": "nobody", "timeout_ms": 0}, 0},
		{"mempalace_event_owed", map[string]any{"agent": worker}, 1},
		{"mempalace_event_awaiting", map[string]any{"agent": writer, "stream": stream, "older_than": "24h"}, 0},
		{"mempalace_event_search", map[string]any{"query": "now", "stream": stream, "order": "hlc"}, 1},
		{"mempalace_event_search", map[string]any{"query": "nothing", "stream": stream}, 0},
	}
	for _, r := range reads {
		res, out := d.call(r.tool, r.args)
		if r.count >= 0 && out["count"] != r.count {
			d.fatalf("%s %v: %s", r.tool, r.args, res.Text)
		}
		d.sameAsBare(r.tool, r.args, res)
	}
	// An ask's age_s moves with the clock: its text is not held to the
	// bare client's.
	if res, out := d.call("mempalace_event_awaiting", map[string]any{"agent": writer, "stream": stream}); out["count"] != 1.0 ||
		out["asks"].([]any)[0].(map[string]any)["addressee"] != worker {
		d.fatalf("awaiting before the ack: %s", res.Text)
	}

	ack := map[string]any{"event_id": eventID, "from_agent": worker, "status": "applied", "idempotency_key": p + "-ack"}
	res, _ = d.call("mempalace_event_ack", ack)
	d.sameAsBareRetry("mempalace_event_ack", ack, res)
	if res, out := d.call("mempalace_event_owed", map[string]any{"agent": worker, "stream": stream}); out["count"] != 0.0 {
		d.fatalf("owed after the ack: %s", res.Text)
	}
	if res, out := d.call("mempalace_event_awaiting", map[string]any{"agent": writer, "stream": stream}); out["count"] != 0.0 {
		d.fatalf("awaiting after the ack: %s", res.Text)
	}
	patch := map[string]any{"content": "--- a\n+++ b\n", "from_agent": worker, "stream": stream, "correlation_id": thread,
		"idempotency_key": p + "-patch"}
	res, _ = d.call("mempalace_patch_submit", patch)
	d.sameAsBareRetry("mempalace_patch_submit", patch, res)
	task := map[string]any{"project": p, "from_agent": writer, "to_agent": worker, "goal": "g <x>", "branch": "main",
		"base_commit": "abcdef0", "done": "d", "idempotency_key": p + "-task"}
	res, _ = d.call("mempalace_task_create", task)
	d.sameAsBareRetry("mempalace_task_create", task, res)
	d.call("mempalace_mesh_peers", map[string]any{})
}

// refusal is a call the tool refuses, with the hub's text.
type refusal struct {
	tool string
	args map[string]any
	text string // the error member of the payload
}

// refusals runs a refused input of every tool that takes input: isError,
// the hub's exact text, the bare client's text.
func (d *driver) refusals() {
	d.t.Helper()
	for _, r := range []refusal{
		{"mempalace_event_append", map[string]any{"type": "Task.Request", "stream": "s", "room": "r", "from_agent": "a"},
			"type='Task.Request' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"},
		{"mempalace_task_create", map[string]any{"project": "p", "from_agent": "a", "to_agent": "b", "goal": "g",
			"branch": "main", "base_commit": "main", "done": "d"},
			"task base commit must be a hexadecimal Git object id (at least 7 characters), not a branch or tag"},
		{"mempalace_event_list", map[string]any{"order": "up"}, "order='up' must be 'asc' or 'desc'"},
		{"mempalace_event_wait", map[string]any{"timeout_ms": -1}, "timeout_ms must be a non-negative number"},
		{"mempalace_event_ack", map[string]any{"event_id": "evt_nope", "from_agent": "a"}, "event 'evt_nope' not found"},
		{"mempalace_event_owed", map[string]any{"agent": ""}, "agent must be a non-empty string"},
		{"mempalace_event_awaiting", map[string]any{"agent": "a", "older_than": "soon"},
			"older_than='soon' is not a non-negative duration such as 30m or 2h"},
		{"mempalace_event_search", map[string]any{"query": `"open`}, `search query '"open' is malformed: a quote is not closed`},
		{"mempalace_artifact_put", map[string]any{"kind": "diff", "content": "c", "created_by": "a"},
			"kind='diff' is not one of: file, json, log, note, patch"},
		{"mempalace_artifact_get", map[string]any{"artifact_id": "art_x"}, "artifact 'art_x' not found"},
		{"mempalace_patch_submit", map[string]any{"content": "x", "from_agent": "a", "stream": "s", "room": 5},
			"room must be a non-empty string"},
	} {
		res, out := d.call(r.tool, r.args)
		if !res.IsError || out["error"] != r.text {
			d.fatalf("%s %v: %s, want the refusal %q", r.tool, r.args, res.Text, r.text)
		}
		d.sameAsBare(r.tool, r.args, res)
	}
}

// rpcErrors runs the failures the hub answers as JSON-RPC errors.
func (d *driver) rpcErrors() {
	d.t.Helper()
	for _, e := range []struct {
		tool string
		args map[string]any
		text string
	}{
		{"mempalace_event_list", map[string]any{"bogus": 1}, "Unknown parameter 'bogus' for tool mempalace_event_list"},
		{"mempalace_event_append", map[string]any{"type": "t"},
			"Missing required parameters 'stream', 'room', 'from_agent' for tool mempalace_event_append"},
		{"mempalace_event_list", map[string]any{"limit": "ten"}, "Invalid value for parameter 'limit'"},
		{"mempalace_search", map[string]any{}, "Unknown tool: mempalace_search"},
	} {
		if _, err := d.c.Call(d.ctx, e.tool, e.args); !errContains(err, e.text) {
			d.fatalf("%s %v: %v, want a JSON-RPC error %q", e.tool, e.args, err, e.text)
		}
	}
}

// resources reads every resource and a missing one: the contents are the
// tools' answers. The hub's bare client has none: its era gets the hub's
// "Unknown method".
func (d *driver) resources() {
	d.t.Helper()
	templates, err := d.c.Templates(d.ctx)
	if d.c.Version() == "" {
		if !errContains(err, "Unknown method: resources/templates/list") {
			d.fatalf("resources/templates/list: %v %v, want the hub's Unknown method", templates, err)
		}
		return
	}
	if err != nil || !slices.Equal(templates, resourceTemplates) {
		d.fatalf("resources/templates/list: %v %v", templates, err)
	}
	p := d.prefix
	worker, thread := p+"-b", p+"-thread"
	_, list := d.call("mempalace_event_list", map[string]any{"correlation_id": thread, "order": "asc", "limit": 500})
	events := list["events"].([]any)
	first := events[0].(map[string]any)
	artID := first["artifact_ids"].([]any)[0].(string)
	for _, r := range []struct {
		uri  string
		tool string
		args map[string]any
	}{
		{"lsnode://agents/" + url.PathEscape(worker) + "/owed", "mempalace_event_owed", map[string]any{"agent": worker}},
		{"lsnode://threads/" + url.PathEscape(thread), "mempalace_event_list", map[string]any{"correlation_id": thread, "order": "asc", "limit": 500}},
		{"lsnode://artifacts/" + artID, "mempalace_artifact_get", map[string]any{"artifact_id": artID}},
	} {
		text, err := d.c.Read(d.ctx, r.uri)
		if err != nil {
			d.fatalf("read %s: %v", r.uri, err)
		}
		want, err := d.bare.Call(d.ctx, r.tool, r.args)
		if err != nil || text != want.Text {
			d.fatalf("read %s:\n%s\nwant %s's answer\n%s (%v)", r.uri, text, r.tool, want.Text, err)
		}
	}
	uri := "lsnode://events/" + first["id"].(string)
	text, err := d.c.Read(d.ctx, uri)
	if err != nil {
		d.fatalf("read %s: %v", uri, err)
	}
	if got := decode(d.t, text); !reflect.DeepEqual(got["event"], first) || !bytes.HasPrefix([]byte(text), []byte("{\n  \"event\": {\n    \"id\": ")) {
		d.fatalf("read %s: %s, want {\"event\": %v}", uri, text, first)
	}
	for uri, want := range map[string]string{
		"lsnode://artifacts/art_x":    "artifact 'art_x' not found",
		"lsnode://events/evt_nope":    "event 'evt_nope' not found",
		"lsnode://agents//owed":       "Resource not found",
		"lsnode://nowhere/x":          "Resource not found",
		"lsnode://agents/%20%20/owed": "agent must be a non-empty string",
	} {
		if text, err := d.c.Read(d.ctx, uri); !errContains(err, want) {
			d.fatalf("read %s: %q %v, want an error %q", uri, text, err, want)
		}
	}
}

// decode parses a JSON object text.
func decode(t testing.TB, text string) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("payload %q: %v", text, err)
	}
	return out
}

// CheckListener, for the client of mark3labs/mcp-go, waits (up to 10 s)
// for its continuous listener to stop on the 405 of the GET stream, and
// fails if it ever took the server for one whose session ended; log is
// the client's log. Other clients open no stream: it checks nothing of
// them.
func CheckListener(t testing.TB, c Client, log *LogBuffer) {
	t.Helper()
	if _, ok := c.(*mark3Client); !ok {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), "server does not support listening") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if text := log.String(); strings.Contains(text, "session terminated") || !strings.Contains(text, "server does not support listening") {
		t.Fatalf("%s's listener:\n%s", c.Name(), text)
	}
}
