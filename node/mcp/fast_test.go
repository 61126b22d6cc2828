package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/store"
)

// statusSDKOnly is what the probe servers' stand-in for the SDK answers.
const statusSDKOnly = 599

var sdkStandIn = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(statusSDKOnly) })

// Which part of the pipeline answers a request.
const (
	bySDK    = "sdk"    // the SDK server
	byFast   = "fast"   // the native path (nativeCall)
	byScreen = "screen" // the compatibility screen, before either
)

// pathPair serves one store two ways: with the native path (as in
// production) and with every request going through the SDK; and twice
// more with the SDK replaced by a stand-in, with and without the native
// path, to tell which part answers a request.
type pathPair struct {
	t                        testing.TB
	fast, sdk, probe, noFast string
}

func newPathPair(t testing.TB, opts Options) *pathPair {
	t.Helper()
	serve := func(adjust func(*Handler)) string {
		h := NewHandler(opts)
		adjust(h)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	return &pathPair{
		t:     t,
		fast:  serve(func(*Handler) {}),
		sdk:   serve(func(h *Handler) { h.native = false }),
		probe: serve(func(h *Handler) { h.sdk, h.sdkStream = sdkStandIn, sdkStandIn }),
		noFast: serve(func(h *Handler) {
			h.sdk, h.sdkStream, h.native = sdkStandIn, sdkStandIn, false
		}),
	}
}

// answer is everything a client can see of a response but its Date.
type answer struct {
	status           int
	header           http.Header
	contentLength    int64
	transferEncoding []string
	body             []byte
}

func (p *pathPair) do(url string, header http.Header, body string) answer {
	p.t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header = header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatalf("read: %v", err)
	}
	resp.Header.Del("Date")
	return answer{resp.StatusCode, resp.Header, resp.ContentLength, resp.TransferEncoding, out}
}

// fastCase is one request and the layer that answers it.
type fastCase struct {
	name   string
	header http.Header
	body   string
	by     string
}

// check sends the request through the SDK once (so that a write with an
// idempotency key exists and every later answer is its duplicate), then
// through both paths, and requires the same answer byte for byte; the
// probes tell which layer answered.
func (p *pathPair) check(t *testing.T, tc fastCase) {
	t.Helper()
	if tc.header == nil {
		tc.header = bareHeader()
	}
	p.do(p.sdk, tc.header, tc.body)
	viaSDK := p.do(p.sdk, tc.header, tc.body)
	viaFast := p.do(p.fast, tc.header, tc.body)
	if viaSDK.status != viaFast.status || !bytes.Equal(viaSDK.body, viaFast.body) ||
		!maps.EqualFunc(viaSDK.header, viaFast.header, slices.Equal) ||
		viaSDK.contentLength != viaFast.contentLength || !slices.Equal(viaSDK.transferEncoding, viaFast.transferEncoding) {
		t.Fatalf("paths differ\nSDK:  %d %v len=%d te=%v %.600s\nfast: %d %v len=%d te=%v %.600s",
			viaSDK.status, viaSDK.header, viaSDK.contentLength, viaSDK.transferEncoding, viaSDK.body,
			viaFast.status, viaFast.header, viaFast.contentLength, viaFast.transferEncoding, viaFast.body)
	}
	by := bySDK
	switch {
	case p.do(p.noFast, tc.header, tc.body).status != statusSDKOnly:
		by = byScreen
	case p.do(p.probe, tc.header, tc.body).status != statusSDKOnly:
		by = byFast
	}
	if by != tc.by {
		t.Fatalf("answered by %s, want %s (answer %d %.300s)", by, tc.by, viaSDK.status, viaSDK.body)
	}
}

func bareHeader() http.Header {
	return http.Header{"Accept": {"application/json"}, "Authorization": {"Bearer test-token"}}
}

// sdkClientHeader is what a streamable-HTTP client sends after initialize.
func sdkClientHeader(version string) http.Header {
	return http.Header{
		"Accept":               {"application/json, text/event-stream"},
		"Content-Type":         {"application/json"},
		"Mcp-Protocol-Version": {version},
	}
}

func withHeader(h http.Header, key, value string) http.Header {
	h = h.Clone()
	h.Set(key, value)
	return h
}

// toolCall is a tools/call body with id 1.
func toolCall(tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, args)
}

// TestMCPFastPathMatchesSDK runs every tool, their refusals and the
// JSON-RPC envelope's corners through the fast path and through the SDK,
// and requires byte-identical answers.
func TestMCPFastPathMatchesSDK(t *testing.T) {
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p := newPathPair(t, Options{Store: st, Roster: func(context.Context) (any, error) {
		return pyjson.Object{{Key: "replica_id", Value: "rep_test"}, {Key: "peers", Value: []any{}}}, nil
	}})

	// Content that exercises the encoders: HTML characters, line and
	// paragraph separators, control characters, astral planes, a body
	// long enough to be sent chunked.
	odd := `<a href=\"x\">&amp;</a> \u2028\u2029 \u0001\u001f\t\n\r ü 🙂 \ud83d\ude00 \\ / \/`
	artifact := p.do(p.sdk, bareHeader(), toolCall(toolArtifactPut,
		`{"kind":"note","content":"`+odd+strings.Repeat("x", 70000)+`","created_by":"a","idempotency_key":"art-1"}`)).body
	artID := between(t, string(artifact), `\"id\": \"`, `\"`)
	event := p.do(p.sdk, bareHeader(), toolCall(toolEventAppend,
		`{"type":"task.request","stream":"s","room":"r","from_agent":"a","to_agent":"b","body":"`+odd+`","metadata":{"k":[1,2.5,"`+odd+`",null,true]},"idempotency_key":"ev-1"}`)).body
	eventID := between(t, string(event), `\"id\": \"`, `\"`)

	cases := []fastCase{
		// Every tool, answered.
		{name: "append", body: toolCall(toolEventAppend, `{"type":"task.request","stream":"s","room":"r","from_agent":"a","to_agent":"b","artifact_ids":["`+artID+`"],"idempotency_key":"ev-2"}`), by: byFast},
		{name: "append odd content", body: toolCall(toolEventAppend, `{"type":"note","stream":"s","room":"r","from_agent":"a","body":"`+odd+`","idempotency_key":"ev-1"}`), by: byFast},
		{name: "list", body: toolCall(toolEventList, `{"stream":"s","limit":10,"order":"asc"}`), by: byFast},
		{name: "list preview", body: toolCall(toolEventList, `{"to_agent":"b","preview":true,"from_agent":"c"}`), by: byFast},
		{name: "wait, a match", body: toolCall(toolEventWait, `{"to_agent":"b","timeout_ms":1000}`), by: byFast},
		{name: "wait, timed out", body: toolCall(toolEventWait, `{"to_agent":"nobody","timeout_ms":5}`), by: byFast},
		{name: "ack", body: toolCall(toolEventAck, `{"event_id":"`+eventID+`","from_agent":"b","status":"claimed","idempotency_key":"ack-1"}`), by: byFast},
		{name: "owed", body: toolCall(toolEventOwed, `{"agent":"b"}`), by: byFast},
		{name: "artifact put", body: toolCall(toolArtifactPut, `{"kind":"log","content":"c","created_by":"a","idempotency_key":"art-2"}`), by: byFast},
		{name: "artifact get, 70 kB", body: toolCall(toolArtifactGet, `{"artifact_id":"`+artID+`"}`), by: byFast},
		{name: "patch submit", body: toolCall(toolPatchSubmit, `{"content":"--- a\n+++ b\n","from_agent":"b","stream":"s","idempotency_key":"patch-1"}`), by: byFast},
		{name: "task create", body: toolCall(toolTaskCreate, `{"project":"p","from_agent":"a","to_agent":"b","goal":"g","branch":"main","base_commit":"abcdef0","done":"d","idempotency_key":"task-1"}`), by: byFast},
		{name: "mesh peers", body: toolCall(toolMeshPeers, `{}`), by: byFast},

		// Refusals inside the payload, and as JSON-RPC errors.
		{name: "append refused", body: toolCall(toolEventAppend, `{"type":"Bad","stream":"s","room":"r","from_agent":"a"}`), by: byFast},
		{name: "ack of an unknown event", body: toolCall(toolEventAck, `{"event_id":"evt_nope","from_agent":"b"}`), by: byFast},
		{name: "list unknown before", body: toolCall(toolEventList, `{"before_event_id":"evt_nope"}`), by: byFast},
		{name: "artifact get unknown", body: toolCall(toolArtifactGet, `{"artifact_id":"art_nope"}`), by: byFast},
		{name: "unknown parameter", body: toolCall(toolEventList, `{"bogus":1}`), by: byFast},
		{name: "missing required", body: toolCall(toolEventAppend, `{"type":"t"}`), by: byFast},
		{name: "uncoercible argument", body: toolCall(toolEventList, `{"limit":"ten"}`), by: byFast},
		{name: "arguments null", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":null}}`, by: byFast},
		{name: "arguments absent", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_owed"}}`, by: byFast},
		{name: "unknown tool", body: toolCall("mempalace_search", `{}`), by: byScreen},
		{name: "arguments a list", body: toolCall(toolEventList, `[1]`), by: byScreen},

		// Request ids.
		{name: "id 0", body: `{"jsonrpc":"2.0","id":0,"method":"ping"}`, by: byFast},
		{name: "id negative", body: `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, by: byFast},
		{name: "id 2^53", body: `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`, by: byFast},
		{name: "id 2^53+1", body: `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, by: byFast},
		{name: "id beyond int64", body: `{"jsonrpc":"2.0","id":123456789012345678901234,"method":"ping"}`, by: byFast},
		{name: "id fraction", body: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, by: byFast},
		{name: "id exponent", body: `{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, by: byFast},
		{name: "id minus zero", body: `{"jsonrpc":"2.0","id":-0,"method":"ping"}`, by: byFast},
		{name: "id string", body: `{"jsonrpc":"2.0","id":"req-1","method":"ping"}`, by: byFast},
		{name: "id empty string", body: `{"jsonrpc":"2.0","id":"","method":"ping"}`, by: byFast},
		{name: "id HTML and unicode", body: `{"jsonrpc":"2.0","id":"<&>é🙂 ","method":"ping"}`, by: byFast},
		{name: "call id with HTML and separators", body: "{\"jsonrpc\":\"2.0\",\"id\":\"<&>\u2028\u2029\",\"method\":\"tools/call\",\"params\":{\"name\":\"mempalace_event_owed\",\"arguments\":{\"agent\":\"b\"}}}", by: byFast},
		{name: "id with escapes", body: `{"jsonrpc":"2.0","id":"a\"b\u2028\ud800","method":"ping"}`, by: bySDK},
		{name: "id true", body: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, by: byFast},
		{name: "id object", body: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, by: byFast},
		{name: "id list", body: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, by: byFast},
		{name: "duplicate id", body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, by: byFast},

		// The envelope.
		{name: "spaced out", body: " \n{ \"jsonrpc\" : \"2.0\" , \"method\" : \"tools/call\" , \"params\" : { \"arguments\" : { \"stream\" : \"s\" } , \"name\" : \"mempalace_event_list\" } , \"id\" : 3 }\n", by: byFast},
		{name: "ping with params", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`, by: byFast},
		{name: "tools/list", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, by: bySDK},
		{name: "initialize", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, by: bySDK},
		{name: "extra member", body: `{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}`, by: bySDK},
		{name: "jsonrpc 1.0", body: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, by: byFast},
		{name: "jsonrpc a number", body: `{"jsonrpc":2.0,"id":1,"method":"ping"}`, by: byFast},
		{name: "jsonrpc missing", body: `{"id":1,"method":"ping"}`, by: byFast},
		{name: "upper-case member", body: `{"jsonrpc":"2.0","id":1,"method":"ping","ID":2}`, by: bySDK},
		{name: "params _meta", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{},"_meta":{"progressToken":1}}}`, by: bySDK},
		{name: "params extra member", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","requestState":"x"}}`, by: bySDK},
		{name: "nested 990 deep", body: toolCall(toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","metadata":{"k":`+strings.Repeat("[", 988)+strings.Repeat("]", 988)+`},"idempotency_key":"deep-1"}`), by: byFast},
		{name: "nested 1001 deep", body: toolCall(toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a","metadata":{"k":`+strings.Repeat("[", 999)+strings.Repeat("]", 999)+`},"idempotency_key":"deep-2"}`), by: bySDK},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, by: byScreen},
		{name: "batch", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, by: byScreen},
		{name: "invalid JSON", body: `{"jsonrpc":`, by: byScreen},

		// Headers.
		{name: "no headers", header: http.Header{}, body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "form content type", header: withHeader(bareHeader(), "Content-Type", "application/x-www-form-urlencoded"), body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "event-stream only", header: withHeader(bareHeader(), "Accept", "text/event-stream"), body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "session id", header: withHeader(bareHeader(), "Mcp-Session-Id", "abc"), body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "Last-Event-ID", header: withHeader(bareHeader(), "Last-Event-ID", "x_1"), body: toolCall(toolEventList, `{}`), by: bySDK},
		{name: "version 2024-11-05", header: sdkClientHeader("2024-11-05"), body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "version 2025-03-26", header: sdkClientHeader("2025-03-26"), body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "version 2025-06-18", header: sdkClientHeader("2025-06-18"), body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "version 2025-11-25", header: sdkClientHeader("2025-11-25"), body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "version 2025-11-25 with method headers", header: withHeader(withHeader(sdkClientHeader("2025-11-25"), "Mcp-Method", "ping"), "Mcp-Name", "x"), body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "version 2026-07-28", header: sdkClientHeader("2026-07-28"), body: toolCall(toolEventList, `{}`), by: bySDK},
		{name: "unsupported version", header: sdkClientHeader("1999-01-01"), body: toolCall(toolEventList, `{}`), by: bySDK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { p.check(t, tc) })
	}
}

// TestMCPFastPathRefusals compares the paths where the store or the
// server refuses: a read-only server, a read-only store, a failing store,
// a store's validation error.
func TestMCPFastPathRefusals(t *testing.T) {
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	readOnly := newPathPair(t, Options{Store: st, Config: Config{ReadOnly: true}})
	for _, tc := range []fastCase{
		{name: "writer on a read-only server", body: toolCall(toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a"}`), by: byFast},
		{name: "reader on a read-only server", body: toolCall(toolEventList, `{}`), by: byFast},
		{name: "tools/list on a read-only server", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, by: bySDK},
	} {
		t.Run(tc.name, func(t *testing.T) { readOnly.check(t, tc) })
	}

	append := toolCall(toolEventAppend, `{"type":"t","stream":"s","room":"r","from_agent":"a"}`)
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
			newPathPair(t, Options{Store: tc.log}).check(t, fastCase{body: append, by: byFast})
		})
	}
}

// between returns the text of s between the first before and the next after.
func between(t *testing.T, s, before, after string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, before)
	value, _, ok2 := strings.Cut(rest, after)
	if !ok || !ok2 {
		t.Fatalf("no %q...%q in %.300s", before, after, s)
	}
	return value
}
