package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// TestMCPEnvelope covers what the compatibility layer answers itself,
// byte for byte as the Python hub's json.dumps writes it.
func TestMCPEnvelope(t *testing.T) {
	h := newMCPHarness(t, Options{})
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"invalid JSON", `nope`, 400, `{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}`},
		{"empty body", ``, 400, `{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}`},
		{"invalid UTF-8", "{\"method\":\"\xff\"}", 400, `{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 200, `{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request"}}`},
		{"not an object", `"ping"`, 200, `{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request"}}`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, ``},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, 202, ``},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"bogus"}`, 202, ``},
		{"unknown method", `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, 200, `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Unknown method: resources/list"}}`},
		{"integer method", `{"jsonrpc":"2.0","id":"a","method":5}`, 200, `{"jsonrpc": "2.0", "id": "a", "error": {"code": -32601, "message": "Unknown method: expected a string, got int"}}`},
		{"float method", `{"jsonrpc":"2.0","id":2,"method":1.5}`, 200, `{"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Unknown method: expected a string, got float"}}`},
		{"missing method", `{"jsonrpc":"2.0","id":3}`, 200, `{"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "Unknown method: expected a string, got NoneType"}}`},
		{"list method", `{"jsonrpc":"2.0","id":4,"method":[]}`, 200, `{"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Unknown method: expected a string, got list"}}`},
		{"call without params", `{"jsonrpc":"2.0","id":5,"method":"tools/call"}`, 200, `{"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "Invalid params: 'name' is required for tools/call"}}`},
		{"call with list params", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":[]}`, 200, `{"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "Invalid params: 'name' is required for tools/call"}}`},
		{"call without name", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}}`, 200, `{"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "Invalid params: 'name' is required for tools/call"}}`},
		{"integer name", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":5}}`, 200, `{"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "Invalid params: 'name' must be a string and 'arguments' an object"}}`},
		{"null name", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":null}}`, 200, `{"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "Invalid params: 'name' must be a string and 'arguments' an object"}}`},
		{"string arguments", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":"x"}}`, 200, `{"jsonrpc": "2.0", "id": 6, "error": {"code": -32602, "message": "Invalid params: 'name' must be a string and 'arguments' an object"}}`},
		{"unknown tool", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mempalace_search"}}`, 200, `{"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Unknown tool: mempalace_search"}}`},
		{"unknown tool, bad arguments", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope","arguments":[1]}}`, 200, `{"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "Invalid params: 'name' must be a string and 'arguments' an object"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, header, body := h.post(tc.body)
			if status != tc.status || string(body) != tc.want {
				t.Fatalf("got %d %s\nwant %d %s", status, body, tc.status, tc.want)
			}
			if tc.want != "" && header.Get("Content-Type") != "application/json" {
				t.Fatalf("Content-Type %q", header.Get("Content-Type"))
			}
		})
	}
}

// TestMCPBareToolsCall is a client that POSTs one tools/call with only
// "Accept: application/json" and a bearer token, and no initialize.
func TestMCPBareToolsCall(t *testing.T) {
	h := newMCPHarness(t, Options{})
	status, header, body := h.post(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{"stream":"s"}}}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	if ct := header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	want := `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"{\n  \"events\": [],\n  \"count\": 0,\n  \"cursor\": \"` +
		store.EncodeCursor(map[string]int64{}) + `\"\n}"}]}}`
	if string(body) != want {
		t.Fatalf("body\n%s\nwant\n%s", body, want)
	}
}

// TestMCPAnyContentType covers a client posting with curl's default form
// content type and no Accept header at all.
func TestMCPAnyContentType(t *testing.T) {
	h := newMCPHarness(t, Options{})
	resp, err := http.Post(h.url, "application/x-www-form-urlencoded", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r nodetest.RPCReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || resp.StatusCode != 200 || string(r.Result) != "{}" {
		t.Fatalf("ping: %d %s %v", resp.StatusCode, r.Result, err)
	}
}

func TestMCPInitialize(t *testing.T) {
	h := newMCPHarness(t, Options{Version: "1.2.3"})
	for _, tc := range []struct{ params, want string }{
		{`{}`, "2024-11-05"},
		{`[]`, "2024-11-05"},
		{``, "2024-11-05"},
		{`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`, "2025-06-18"},
		{`{"protocolVersion":"2025-03-26"}`, "2025-03-26"},
		{`{"protocolVersion":"1999-01-01"}`, "2025-11-25"},
		{`{"protocolVersion":"2026-07-28"}`, "2025-11-25"},
	} {
		r := h.rpc("initialize", tc.params)
		want := `{"capabilities":{"tools":{}},"protocolVersion":"` + tc.want + `","serverInfo":{"name":"mempalace","version":"1.2.3"}}`
		if string(r.Result) != want {
			t.Errorf("initialize %s: %s\nwant %s", tc.params, r.Result, want)
		}
	}
	if r := h.rpc("ping", ""); string(r.Result) != "{}" {
		t.Errorf("ping: %s", r.Result)
	}
}

// TestMCPNotificationWithID: the hub answers no notifications/* method,
// whatever its id: 202 and no body.
func TestMCPNotificationWithID(t *testing.T) {
	h := newMCPHarness(t, Options{})
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"n","method":"notifications/cancelled","params":{"requestId":1}}`,
	} {
		if status, _, out := h.post(body); status != http.StatusAccepted || len(out) != 0 {
			t.Errorf("%s: got %d %s, want 202 and no body", body, status, out)
		}
	}
}

// TestMCPAnyVersionTag: the hub never reads "jsonrpc", so a hand-written
// client that leaves it out (or sends another tag) is answered as usual,
// with JSON, and its call runs.
func TestMCPAnyVersionTag(t *testing.T) {
	h := newMCPHarness(t, Options{})
	for i, env := range []string{`"id":1`, `"jsonrpc":"1.0","id":2`, `"jsonrpc":null,"id":3`} {
		body := `{` + env + `,"method":"tools/call","params":{"name":"mempalace_event_append","arguments":` +
			`{"type":"note","stream":"s","room":"r","from_agent":"a"},"_meta":{}}}`
		status, header, out := h.post(body)
		var r nodetest.RPCReply
		if status != http.StatusOK || header.Get("Content-Type") != "application/json" || json.Unmarshal(out, &r) != nil {
			t.Fatalf("%s: %d %q %s", env, status, header.Get("Content-Type"), out)
		}
		if p := r.Payload(t); p["success"] != true {
			t.Fatalf("%s: %s", env, out)
		}
		if got := h.call(toolEventList, `{}`).Payload(t)["count"]; got != json.Number(strconv.Itoa(i+1)) {
			t.Fatalf("%s: %v events stored, want %d", env, got, i+1)
		}
	}
	if status, _, out := h.post(`{"id":9,"method":"ping"}`); status != http.StatusOK || string(out) != `{"jsonrpc":"2.0","id":9,"result":{}}` {
		t.Fatalf("ping without a tag: %d %s", status, out)
	}
}

// TestMCPKeepsTheRequestID: the hub echoes any request id as Python
// decoded it; the SDK rounds integers beyond 2^53 (a client numbering
// requests with nanosecond clocks gets another id back) and refuses ids
// that are not numbers or strings.
func TestMCPKeepsTheRequestID(t *testing.T) {
	h := newMCPHarness(t, Options{})
	for id, want := range map[string]string{
		`1764530000000000001`: `1764530000000000001`,
		`-9007199254740993`:   `-9007199254740993`,
		`1.5`:                 `1.5`,
		`1e2`:                 `100.0`,
		`true`:                `true`,
		`[1]`:                 `[1]`,
		`{"a":1}`:             `{"a": 1}`,
	} {
		for _, rest := range []string{
			`"method":"ping"`,
			`"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{"limit":1}}`,
			`"method":"tools/list"`,
		} {
			status, header, out := h.post(`{"jsonrpc":"2.0","id":` + id + `,` + rest + `}`)
			var r nodetest.RPCReply
			if status != http.StatusOK || header.Get("Content-Type") != "application/json" || json.Unmarshal(out, &r) != nil {
				t.Fatalf("id %s, %s: %d %q %s", id, rest, status, header.Get("Content-Type"), out)
			}
			if string(r.ID) != want || r.Error != nil || r.Result == nil {
				t.Fatalf("id %s, %s: answered %s, want id %s and a result", id, rest, out, want)
			}
		}
	}
}

// TestMCPPingAndListIgnoreParams: the hub's ping and tools/list never read
// their params, so a cursor, a list or a string there changes nothing.
func TestMCPPingAndListIgnoreParams(t *testing.T) {
	h := newMCPHarness(t, Options{})
	for _, params := range []string{`[]`, `"x"`, `{"cursor":"nope"}`, `{"_meta":{"progressToken":1}}`} {
		if r := h.rpc("ping", params); r.Error != nil || string(r.Result) != "{}" {
			t.Errorf("ping %s: %s %+v", params, r.Result, r.Error)
		}
		var list struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		r := h.rpc("tools/list", params)
		if r.Error != nil || json.Unmarshal(r.Result, &list) != nil || len(list.Tools) != len(catalog()) {
			t.Errorf("tools/list %s: %s %+v", params, r.Result, r.Error)
		}
	}
}

// TestMCPRequestWithoutID: the hub treats only notifications/* methods
// and unknown methods without an id as notifications; any other request
// without an id (or with a null one) runs and is answered with id null, so
// a write sent that way is stored, not dropped.
func TestMCPRequestWithoutID(t *testing.T) {
	h := newMCPHarness(t, Options{})
	for i, env := range []string{`"jsonrpc":"2.0"`, `"jsonrpc":"2.0","id":null`} {
		status, _, out := h.post(`{` + env + `,"method":"tools/call","params":{"name":"mempalace_event_append",` +
			`"arguments":{"type":"note","stream":"s","room":"r","from_agent":"a"}}}`)
		var r nodetest.RPCReply
		if status != http.StatusOK || json.Unmarshal(out, &r) != nil || string(r.ID) != "null" || r.Payload(t)["success"] != true {
			t.Fatalf("%s: %d %s", env, status, out)
		}
		if got := h.call(toolEventList, `{}`).Payload(t)["count"]; got != json.Number(strconv.Itoa(i+1)) {
			t.Fatalf("%s: %v events stored, want %d", env, got, i+1)
		}
	}
	if status, _, out := h.post(`{"jsonrpc":"2.0","method":"ping"}`); status != http.StatusOK || string(out) != `{"jsonrpc":"2.0","id":null,"result":{}}` {
		t.Fatalf("ping without id: %d %s", status, out)
	}
	want := `{"jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "Unknown tool: nope"}}`
	if status, _, out := h.post(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"nope"}}`); status != http.StatusOK || string(out) != want {
		t.Fatalf("unknown tool without id: %d %s", status, out)
	}
}

// TestMCPInitializeReadsOnlyTheVersion: the hub's initialize reads
// params.protocolVersion and nothing else, so odd capabilities or
// clientInfo never fail it, and a version that is not a supported string
// negotiates the newest.
func TestMCPInitializeReadsOnlyTheVersion(t *testing.T) {
	h := newMCPHarness(t, Options{Version: "1.2.3"})
	for params, version := range map[string]string{
		`{"protocolVersion":5}`:                                "2025-11-25",
		`{"protocolVersion":["2025-06-18"]}`:                   "2025-11-25",
		`{"capabilities":"x","protocolVersion":"2025-06-18"}`:  "2025-06-18",
		`{"clientInfo":5,"protocolVersion":"2025-03-26"}`:      "2025-03-26",
		`{"clientInfo":{"name":5},"capabilities":{"roots":1}}`: "2024-11-05",
	} {
		r := h.rpc("initialize", params)
		want := `{"capabilities":{"tools":{}},"protocolVersion":"` + version + `","serverInfo":{"name":"mempalace","version":"1.2.3"}}`
		if r.Error != nil || string(r.Result) != want {
			t.Errorf("initialize %s: %s %+v\nwant %s", params, r.Result, r.Error, want)
		}
	}
}

// TestMCPToolsListAsHub: tools/list's result holds only "tools", as the
// hub's does. go-sdk adds the cache-control members of list results
// (ttlMs, cacheScope) that the hub never sends; the node drops them, also
// when the id needs restoring too, and leaves the rest of the answer as
// the SDK wrote it.
func TestMCPToolsListAsHub(t *testing.T) {
	h := newMCPHarness(t, Options{})
	for _, id := range []string{`1`, `null`, `1.0`, `"x"`} {
		status, _, out := h.post(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		var r nodetest.RPCReply
		if status != http.StatusOK || json.Unmarshal(out, &r) != nil || r.Error != nil {
			t.Fatalf("id %s: %d %s", id, status, out)
		}
		result, err := jsonText.Members(r.Result)
		if err != nil || len(result) != 1 || result[0].Key != "tools" {
			t.Fatalf("id %s: result %.200s, want only \"tools\"", id, r.Result)
		}
		if !bytes.HasPrefix(out, []byte(`{"jsonrpc":"2.0","id":`)) || !bytes.Contains(out, []byte(`,"result":{"tools":[{"`)) {
			t.Fatalf("id %s: answer framed otherwise than the SDK's: %.200s", id, out)
		}
		var list struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if json.Unmarshal(r.Result, &list) != nil || len(list.Tools) != len(catalog()) {
			t.Fatalf("id %s: %d tools in %.200s", id, len(list.Tools), r.Result)
		}
	}
}

// TestMCPLoneSurrogates: arguments decode as Python's json.loads decodes
// them, so a lone UTF-16 surrogate ("a\udcffb") stays one where the hub's
// error texts quote the value (repr shows \udcff), while stored text
// gets U+FFFD, as the hub's strip_lone_surrogates gives it.
func TestMCPLoneSurrogates(t *testing.T) {
	h := newMCPHarness(t, Options{})
	for _, tc := range []struct {
		name, tool, args, want string
	}{
		{"type", toolEventAppend, `{"type":"a\udcffb","stream":"s","room":"r","from_agent":"a"}`,
			`type='a\udcffb' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)`},
		{"status", toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","status":"a\udcffb"}`,
			`status='a\udcffb' is not one of: applied, blocked, claimed, failed, open, ready, superseded`},
		{"kind", toolArtifactPut, `{"kind":"a\uDCFFb","content":"c","created_by":"a"}`,
			`kind='a\udcffb' is not one of: file, json, log, note, patch`},
		{"order", toolEventList, `{"order":" A\udcffB "}`, `order='a\udcffb' must be 'asc' or 'desc'`},
		{"since_created_at", toolEventList, `{"since_created_at":"2026-01-01\ud800"}`,
			`since_created_at='2026-01-01\ud800' is not a valid ISO-8601 date or UTC datetime (expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)`},
		{"artifact_id", toolArtifactGet, `{"artifact_id":"art_\udcff"}`, `artifact 'art_\udcff' not found`},
		{"a pair stays a character", toolEventAppend, `{"type":"\ud83d\ude00","stream":"s","room":"r","from_agent":"a"}`,
			`type='😀' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)`},
		{"two high halves", toolEventAppend, `{"type":"\ud83d\ud83d\ude00","stream":"s","room":"r","from_agent":"a"}`,
			`type='\ud83d😀' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.call(tc.tool, tc.args)
			if got := r.Payload(t)["error"]; got != tc.want {
				t.Fatalf("error %q\nwant  %q", got, tc.want)
			}
			if want, _ := pyjson.DumpsIndent(tc.want); !strings.Contains(r.Text(t), "\"error\": "+string(want)) {
				t.Fatalf("text %s does not quote %s as the hub's json.dumps does", r.Text(t), want)
			}
		})
	}
	ev := h.appendEvent(`{"type":"t","stream":"s\udcff","room":"r","from_agent":"a","body":"a\udcffb\ud800",` +
		`"metadata":{"k":"a\udcffb","\udcff":["\udcff"]}}`)
	if ev["stream"] != "s\ufffd" || ev["body"] != "a\ufffdb\ufffd" {
		t.Fatalf("stored %v", ev)
	}
	if meta := ev["metadata"].(map[string]any); meta["k"] != "a\ufffdb" || fmt.Sprint(meta["\ufffd"]) != "[\ufffd]" {
		t.Fatalf("stored metadata %v", ev["metadata"])
	}
}
