package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCPToolErrors: refused input is a normal result whose payload holds
// the hub's exact text: {"success": false, "error": ...} from writers,
// {"error": ...} from readers. When several arguments are wrong, the one
// the hub checks first is reported.
func TestMCPToolErrors(t *testing.T) {
	h := newMCPHarness(t, Options{})
	target := h.appendEvent(`{"type":"task.request","stream":"s","room":"r","from_agent":"a","to_agent":"b"}`)["id"].(string)
	long := strings.Repeat("x", 257)
	bigBody := strings.Repeat("é", 131073) // 262146 bytes
	cases := []struct {
		name, tool, args, want string
	}{
		// event_append, in the hub's order
		{"append blank type", toolEventAppend, `{"type":"  ","stream":"s","room":"r","from_agent":"a"}`, "type must be a non-empty string"},
		{"append bad type", toolEventAppend, `{"type":"Task.Request","stream":"s","room":"r","from_agent":"a"}`,
			"type='Task.Request' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"},
		{"append integer stream", toolEventAppend, `{"type":"t","stream":5,"room":"r","from_agent":"a"}`, "stream must be a non-empty string"},
		{"append long room", toolEventAppend, `{"type":"t","stream":"s","room":"` + long + `","from_agent":"a"}`, "room exceeds maximum length of 256 characters"},
		{"append integer topic", toolEventAppend, `{"type":"t","stream":"s","room":"r","topic":5,"from_agent":"a"}`, "topic must be a non-empty string"},
		{"append empty from_agent", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":""}`, "from_agent must be a non-empty string"},
		{"append control to_agent", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","to_agent":"b\u0007"}`, "to_agent contains control characters"},
		{"append bad status", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","status":"done"}`,
			"status='done' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},
		{"append integer status", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","status":5}`,
			"status=5 is not one of: applied, blocked, claimed, failed, open, ready, superseded"},
		{"append integer body", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","body":5}`, "body must be a string"},
		{"append NUL body", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","body":"a\u0000b"}`, "body contains null bytes"},
		{"append big body", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","body":"` + bigBody + `"}`,
			"body is 262146 bytes; maximum is 262144 bytes"},
		{"append string metadata", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","metadata":"{}"}`, "metadata must be an object"},
		{"append list metadata", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","metadata":[1]}`, "metadata must be an object"},
		{"append reserved metadata", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","metadata":{"_lsnode":1}}`,
			"metadata key '_lsnode' is reserved for lsnode"},
		{"append string artifact_ids", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","artifact_ids":"art_1"}`,
			"artifact_ids must be a list of artifact id strings"},
		{"append unknown artifact", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","artifact_ids":["art_nope"]}`,
			"artifact_ids references unknown artifact 'art_nope'"},
		{"append long idempotency key", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","idempotency_key":"` + long + `"}`,
			"idempotency_key exceeds maximum length of 256 characters"},
		{"append first error wins", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","body":5,"status":"x","metadata":1}`,
			"status='x' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},

		// event_list and event_wait
		{"list bad type", toolEventList, `{"type":"A"}`, "type='A' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)"},
		{"list integer writer", toolEventList, `{"writer":5}`, "from_agent must be a non-empty string"},
		{"list bad order", toolEventList, `{"order":" Sideways "}`, "order='sideways' must be 'asc' or 'desc'"},
		{"list integer order", toolEventList, `{"order":5}`, "order='5' must be 'asc' or 'desc'"},
		{"list zero limit", toolEventList, `{"limit":0}`, "limit must be a positive integer"},
		{"list bad date", toolEventList, `{"since_created_at":"2026-02-30"}`,
			"since_created_at='2026-02-30' is not a valid ISO-8601 date or UTC datetime (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"},
		{"list integer date", toolEventList, `{"since_created_at":20260101}`, "since_created_at must be a string"},
		{"list unknown before", toolEventList, `{"before_event_id":"evt_nope"}`, "before_event_id 'evt_nope' not found"},
		{"list integer cursor", toolEventList, `{"cursor":5}`, "cursor must be a string"},
		{"list order before limit", toolEventList, `{"limit":-1,"order":"up"}`, "order='up' must be 'asc' or 'desc'"},
		{"wait negative timeout", toolEventWait, `{"timeout_ms":-1}`, "timeout_ms must be a non-negative number"},
		{"wait timeout checked first", toolEventWait, `{"stream":5,"timeout_ms":-5}`, "timeout_ms must be a non-negative number"},
		{"wait bad status", toolEventWait, `{"status":"closed","timeout_ms":0}`,
			"status='closed' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},

		// event_ack
		{"ack empty id", toolEventAck, `{"event_id":"","from_agent":"a"}`, "event_id must be a non-empty string"},
		{"ack unknown id before from_agent", toolEventAck, `{"event_id":" evt_nope ","from_agent":5}`, "event 'evt_nope' not found"},
		{"ack bad from_agent", toolEventAck, `{"event_id":"` + target + `","from_agent":5}`, "from_agent must be a non-empty string"},
		{"ack bad topic first", toolEventAck, `{"event_id":"` + target + `","from_agent":5,"topic":7}`, "topic must be a non-empty string"},
		{"ack bad status", toolEventAck, `{"event_id":"` + target + `","from_agent":"b","status":"ok"}`,
			"status='ok' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},

		// event_owed
		{"owed empty agent", toolEventOwed, `{"agent":""}`, "agent must be a non-empty string"},
		{"owed bad limit", toolEventOwed, `{"agent":"b","limit":-2}`, "limit must be a positive integer"},

		// artifacts
		{"put bad kind", toolArtifactPut, `{"kind":"zip","content":"","created_by":""}`, "kind='zip' is not one of: file, json, log, note, patch"},
		{"put null kind", toolArtifactPut, `{"kind":null,"content":"x","created_by":"a"}`, "kind=None is not one of: file, json, log, note, patch"},
		{"put created_by before content", toolArtifactPut, `{"kind":"note","content":"","created_by":" "}`, "created_by must be a non-empty string"},
		{"put empty content", toolArtifactPut, `{"kind":"note","content":"","created_by":"a"}`, "content must be a non-empty string"},
		{"put NUL content", toolArtifactPut, `{"kind":"note","content":"\u0000","created_by":"a"}`, "content contains null bytes"},
		{"put bad metadata", toolArtifactPut, `{"kind":"note","content":"x","created_by":"a","metadata":true}`, "metadata must be an object"},
		{"get empty id", toolArtifactGet, `{"artifact_id":""}`, "artifact_id must be a non-empty string"},
		{"get integer id", toolArtifactGet, `{"artifact_id":5}`, "artifact_id must be a non-empty string"},
		{"get unknown id, as sent", toolArtifactGet, `{"artifact_id":" art_nope "}`, "artifact ' art_nope ' not found"},
		{"patch from_agent is created_by", toolPatchSubmit, `{"content":"d\n","from_agent":"","stream":"s"}`, "created_by must be a non-empty string"},
		{"patch empty content", toolPatchSubmit, `{"content":"","from_agent":"a","stream":"s"}`, "content must be a non-empty string"},
		{"patch metadata before stream", toolPatchSubmit, `{"content":"d\n","from_agent":"a","stream":5,"metadata":2}`, "metadata must be an object"},
		{"patch null room", toolPatchSubmit, `{"content":"d\n","from_agent":"a","stream":"s","room":null}`, "room must be a non-empty string"},
		{"patch bad body", toolPatchSubmit, `{"content":"d\n","from_agent":"a","stream":"s","body":[]}`, "body must be a string"},

		// task_create
		{"task empty project", toolTaskCreate, taskArgs("project", `""`), "task project must not be empty"},
		{"task integer from_agent", toolTaskCreate, taskArgs("from_agent", `5`), "task requesting agent must not be empty"},
		{"task blank to_agent", toolTaskCreate, taskArgs("to_agent", `" "`), "task destination agent must not be empty"},
		{"task empty branch", toolTaskCreate, taskArgs("branch", `""`), "task branch must not be empty"},
		{"task branch as base", toolTaskCreate, taskArgs("base_commit", `"main"`),
			"task base commit must be a hexadecimal Git object id (at least 7 characters), not a branch or tag"},
		{"task empty base", toolTaskCreate, taskArgs("base_commit", `""`), "task base commit must not be empty"},
		{"task blank goal", toolTaskCreate, taskArgs("goal", `"\n"`), "task goal must not be empty"},
		{"task empty done", toolTaskCreate, taskArgs("done", `""`), "task definition of done must not be empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(tc.tool, tc.args)
			p := r.Payload(t)
			if p["error"] != tc.want {
				t.Fatalf("error %q\nwant  %q", p["error"], tc.want)
			}
			writer := tc.tool != toolEventList && tc.tool != toolEventWait && tc.tool != toolEventOwed && tc.tool != toolArtifactGet
			wantKeys := "[error]"
			if writer {
				wantKeys = "[success error]"
			}
			if got := r.Keys(t); strings.Join(got, " ") != strings.Trim(wantKeys, "[]") {
				t.Fatalf("keys %v, want %s", got, wantKeys)
			}
		})
	}
	if p := h.call(toolEventList, `{}`).Payload(t); p["count"].(interface{ String() string }).String() != "1" {
		t.Fatalf("a refused write stored something: %v", p)
	}
}

// taskArgs returns valid task_create arguments with one field replaced.
func taskArgs(field, value string) string {
	args := map[string]string{
		"project": `"lsnode"`, "from_agent": `"a"`, "to_agent": `"b"`, "goal": `"g"`,
		"branch": `"main"`, "base_commit": `"abcdef0"`, "done": `"d"`,
	}
	args[field] = value
	var parts []string
	for _, k := range []string{"project", "from_agent", "to_agent", "goal", "branch", "base_commit", "done"} {
		parts = append(parts, `"`+k+`":`+args[k])
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestMCPTaskCreateSchemaStatesRoutingLimits: task_create passes from_agent,
// to_agent and branch on as routing fields, so the server refuses them past
// 256 characters; the tool's schema must say so, as every other tool's
// routing fields do.
func TestMCPTaskCreateSchemaStatesRoutingLimits(t *testing.T) {
	h := newMCPHarness(t, Options{})
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Properties map[string]struct {
					MaxLength *int `json:"maxLength"`
				} `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(h.rpc("tools/list", "").Result, &list); err != nil {
		t.Fatal(err)
	}
	long := `"` + strings.Repeat("x", 257) + `"`
	for _, field := range []string{"from_agent", "to_agent", "branch"} {
		want := field + " exceeds maximum length of 256 characters"
		if got := h.call(toolTaskCreate, taskArgs(field, long)).Payload(t)["error"]; got != want {
			t.Fatalf("%s of 257 characters: %v, want %q", field, got, want)
		}
		for _, tool := range list.Tools {
			if tool.Name != toolTaskCreate {
				continue
			}
			if p := tool.InputSchema.Properties[field]; p.MaxLength == nil || *p.MaxLength != 256 {
				t.Errorf("schema of %s.%s: maxLength %v, want 256", toolTaskCreate, field, p.MaxLength)
			}
		}
	}
}
