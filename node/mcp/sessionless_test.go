package mcp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/store"
)

// sessionlessMeta is the _meta of a sessionless request with the
// version and the capabilities and identity the test gives.
func sessionlessMeta(version, rest string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `"` + rest + `}`
}

// sdkClientMeta is the rest of the _meta the official SDK's client
// sends: its capabilities and identity.
const sdkClientMeta = `,"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}`

// sessionlessCase is a tools/call of tool with args in the sessionless
// protocol, as its clients send it, answered by by.
func sessionlessCase(name, tool, args, by string) fastCase {
	return fastCase{name: name, header: sessionlessCallHeader(tool), body: sessionlessCallBody(`1`, tool, args, sdkClientMeta), by: by}
}

func sessionlessCallHeader(tool string) http.Header {
	return withHeader(withHeader(sessionlessHeader(), "Mcp-Method", "tools/call"), "Mcp-Name", tool)
}

func sessionlessCallBody(id, tool, args, meta string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`,
		id, tool, args, sessionlessMeta(sessionlessSince, meta))
}

// TestMCPSessionlessFastPathMatchesSDK holds the native answers of the
// sessionless protocol's tools/calls to the SDK's, byte for byte (the
// server's identity in the result's _meta and "resultType" included, and
// the 400 of invalid params), for every tool and its refusals; and sends
// to the SDK the requests whose answers only it knows.
func TestMCPSessionlessFastPathMatchesSDK(t *testing.T) {
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p := newPathPair(t, Options{Store: st, Version: "1.2.3<&>", Roster: func(context.Context) (any, error) {
		return pyjson.Object{{Key: "replica_id", Value: "rep_test"}, {Key: "peers", Value: []any{}}}, nil
	}})
	odd := `<a href=\"x\">&amp;</a> \u2028\u2029 \u0001\u001f\t\n\r ü 🙂 \ud83d\ude00 \\ / \/`
	artifact := p.do(p.sdk, bareHeader(), toolCall(toolArtifactPut,
		`{"kind":"note","content":"`+odd+strings.Repeat("x", 70000)+`","created_by":"a","idempotency_key":"art-1"}`)).body
	artID := between(t, string(artifact), `\"id\": \"`, `\"`)
	event := p.do(p.sdk, bareHeader(), toolCall(toolEventAppend,
		`{"type":"task.request","stream":"s","room":"r","from_agent":"a","to_agent":"b","body":"`+odd+`","idempotency_key":"ev-1"}`)).body
	eventID := between(t, string(event), `\"id\": \"`, `\"`)

	call := func(name, tool, meta, by string) fastCase {
		return fastCase{name: name, header: sessionlessCallHeader(tool), body: sessionlessCallBody(`1`, tool, `{}`, meta), by: by}
	}
	cases := []fastCase{
		// Every tool, answered.
		sessionlessCase("append", toolEventAppend, `{"type":"task.request","stream":"s","room":"r","from_agent":"a","to_agent":"b","artifact_ids":["`+artID+`"],"idempotency_key":"ev-2"}`, byFast),
		sessionlessCase("append odd content", toolEventAppend, `{"type":"note","stream":"s","room":"r","from_agent":"a","body":"`+odd+`","metadata":{"k":[1,2.5,null,true]},"idempotency_key":"ev-3"}`, byFast),
		sessionlessCase("list", toolEventList, `{"stream":"s","limit":10,"order":"asc"}`, byFast),
		sessionlessCase("list preview", toolEventList, `{"to_agent":"b","preview":true,"from_agent":"c"}`, byFast),
		sessionlessCase("wait, a match", toolEventWait, `{"to_agent":"b","timeout_ms":1000}`, byFast),
		sessionlessCase("wait, timed out", toolEventWait, `{"to_agent":"nobody","timeout_ms":5}`, byFast),
		sessionlessCase("ack", toolEventAck, `{"event_id":"`+eventID+`","from_agent":"b","status":"claimed","idempotency_key":"ack-1"}`, byFast),
		sessionlessCase("owed", toolEventOwed, `{"agent":"b"}`, byFast),
		sessionlessCase("awaiting", toolAwaiting, `{"agent":"a"}`, byFast),
		sessionlessCase("search", toolSearch, `{"query":"amp"}`, byFast),
		sessionlessCase("artifact put", toolArtifactPut, `{"kind":"log","content":"c","created_by":"a","idempotency_key":"art-2"}`, byFast),
		sessionlessCase("artifact get, 70 kB", toolArtifactGet, `{"artifact_id":"`+artID+`"}`, byFast),
		sessionlessCase("patch submit", toolPatchSubmit, `{"content":"--- a\n+++ b\n","from_agent":"b","stream":"s","idempotency_key":"patch-1"}`, byFast),
		sessionlessCase("task create", toolTaskCreate, `{"project":"p","from_agent":"a","to_agent":"b","goal":"g","branch":"main","base_commit":"abcdef0","done":"d","idempotency_key":"task-1"}`, byFast),
		sessionlessCase("mesh peers", toolMeshPeers, `{}`, byFast),

		// Refusals inside the payload, and as JSON-RPC errors (400).
		sessionlessCase("append refused", toolEventAppend, `{"type":"Bad","stream":"s","room":"r","from_agent":"a"}`, byFast),
		sessionlessCase("ack of an unknown event", toolEventAck, `{"event_id":"evt_nope","from_agent":"b"}`, byFast),
		sessionlessCase("list unknown before", toolEventList, `{"before_event_id":"evt_nope"}`, byFast),
		sessionlessCase("unknown parameter", toolEventList, `{"bogus":1}`, byFast),
		sessionlessCase("missing required", toolEventAppend, `{"type":"t"}`, byFast),
		sessionlessCase("uncoercible argument", toolEventList, `{"limit":"ten"}`, byFast),
		sessionlessCase("arguments null", toolEventList, `null`, byFast),

		// The request's other corners the native path answers.
		call("no client identity", toolEventOwed, `,"io.modelcontextprotocol/clientCapabilities":{}`, byFast),
		call("roots null", toolEventOwed, `,"io.modelcontextprotocol/clientCapabilities":{"roots":null,"sampling":null}`, byFast),
		call("every capability", toolEventOwed, `,"io.modelcontextprotocol/clientCapabilities":{"roots":{},"sampling":{},"elicitation":{},"experimental":{"x":[1]},"extensions":{"a/b":{}}},"io.modelcontextprotocol/clientInfo":{"name":"t","title":"T","version":"1","websiteUrl":"u"}`, byFast),
		{name: "id a string", header: sessionlessCallHeader(toolEventList), body: sessionlessCallBody(`"req-<1>"`, toolEventList, `{}`, sdkClientMeta), by: byFast},
		{name: "id 2^53+1", header: sessionlessCallHeader(toolEventList), body: sessionlessCallBody(`9007199254740993`, toolEventList, `{}`, sdkClientMeta), by: byFast},
		{name: "id null", header: sessionlessCallHeader(toolEventList), body: sessionlessCallBody(`null`, toolEventList, `{}`, sdkClientMeta), by: byFast},
		{name: "session id", header: withHeader(sessionlessCallHeader(toolEventList), "Mcp-Session-Id", "abc"), body: sessionlessCallBody(`1`, toolEventList, `{}`, sdkClientMeta), by: byFast},
		{name: "a param header", header: withHeader(sessionlessCallHeader(toolEventList), "Mcp-Param-Stream", "s"), body: sessionlessCallBody(`1`, toolEventList, `{}`, sdkClientMeta), by: byFast},

		// What only the SDK knows the answer to.
		{name: "Mcp-Name of another tool", header: sessionlessCallHeader(toolEventOwed), body: sessionlessCallBody(`1`, toolEventList, `{}`, sdkClientMeta), by: bySDK},
		{name: "no Mcp-Name", header: withHeader(sessionlessHeader(), "Mcp-Method", "tools/call"), body: sessionlessCallBody(`1`, toolEventList, `{}`, sdkClientMeta), by: bySDK},
		{name: "no Mcp-Method", header: withHeader(sessionlessHeader(), "Mcp-Name", toolEventList), body: sessionlessCallBody(`1`, toolEventList, `{}`, sdkClientMeta), by: bySDK},
		{name: "Mcp-Method of another method", header: withHeader(sessionlessCallHeader(toolEventList), "Mcp-Method", "tools/list"), body: sessionlessCallBody(`1`, toolEventList, `{}`, sdkClientMeta), by: bySDK},
		{name: "no _meta", header: sessionlessCallHeader(toolEventList), body: toolCall(toolEventList, `{}`), by: bySDK},
		{name: "_meta of another version", header: sessionlessCallHeader(toolEventList), by: bySDK,
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{},` + sessionlessMeta("2025-11-25", sdkClientMeta) + `}}`},
		{name: "_meta of a later version", header: sessionlessCallHeader(toolEventList), by: bySDK,
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{},` + sessionlessMeta("2027-01-01", sdkClientMeta) + `}}`},
		{name: "header of an earlier version", header: withHeader(sessionlessCallHeader(toolEventList), "Mcp-Protocol-Version", "2025-11-25"), body: sessionlessCallBody(`1`, toolEventList, `{}`, sdkClientMeta), by: bySDK},
		call("no capabilities", toolEventList, `,"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}`, bySDK),
		call("capabilities null", toolEventList, `,"io.modelcontextprotocol/clientCapabilities":null`, bySDK),
		call("capabilities of the wrong shape", toolEventList, `,"io.modelcontextprotocol/clientCapabilities":{"roots":5}`, bySDK),
		call("client identity null", toolEventList, `,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":null`, bySDK),
		call("client identity of the wrong shape", toolEventList, `,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":1}`, bySDK),
		call("a number beyond float64 in _meta", toolEventList, `,"io.modelcontextprotocol/clientCapabilities":{"experimental":{"x":1E400}}`, bySDK),
		{name: "_meta spelt otherwise", header: sessionlessCallHeader(toolEventList), by: bySDK,
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{},"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"` + sdkClientMeta + `}}}`},
		call("a progress token", toolEventList, sdkClientMeta+`,"progressToken":"p"`, bySDK),
		call("a log level", toolEventList, sdkClientMeta+`,"io.modelcontextprotocol/logLevel":"debug"`, bySDK),
		sessionlessCase("an argument beyond float64", toolEventList, `{"limit":1e400}`, bySDK),
		{name: "params extra member", header: sessionlessCallHeader(toolEventList), by: bySDK,
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","requestState":"x",` + sessionlessMeta(sessionlessSince, sdkClientMeta) + `}}`},
		{name: "ping", header: withHeader(sessionlessHeader(), "Mcp-Method", "ping"), body: sessionlessBody("ping", ""), by: bySDK},
		{name: "ping without params", header: withHeader(sessionlessHeader(), "Mcp-Method", "ping"), body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, by: bySDK},
		{name: "tools/list", header: withHeader(sessionlessHeader(), "Mcp-Method", "tools/list"), body: sessionlessBody("tools/list", ""), by: bySDK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { p.check(t, tc) })
	}
}

// TestMCPSessionlessFastPathRefusals compares the paths of the
// sessionless protocol where the store or the server refuses.
func TestMCPSessionlessFastPathRefusals(t *testing.T) {
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	appendArgs := `{"type":"t","stream":"s","room":"r","from_agent":"a"}`
	readOnly := newPathPair(t, Options{Store: st, Config: Config{ReadOnly: true}})
	readOnly.check(t, sessionlessCase("writer on a read-only server", toolEventAppend, appendArgs, byFast))
	readOnly.check(t, sessionlessCase("reader on a read-only server", toolEventList, `{}`, byFast))
	for _, tc := range []struct {
		name string
		log  *faultyLog
	}{
		{"storage failure", &faultyLog{err: fmt.Errorf("disk I/O error: <%s>", "\u2028")}},
		{"read-only store", &faultyLog{err: store.ErrReadOnly}},
		{"store validation", &faultyLog{err: &store.ValidationError{Msg: "since_event_id 'x' not found", Kind: store.ErrCursorNotHeld}}},
		{"duplicate with warnings", &faultyLog{written: store.Written{Event: store.Event{ID: "evt_1", FromAgent: "a"}, Duplicate: true, SharedName: []string{"rep_b"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newPathPair(t, Options{Store: tc.log}).check(t, sessionlessCase(tc.name, toolEventAppend, appendArgs, byFast))
		})
	}
}
