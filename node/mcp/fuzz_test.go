package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// fuzzTools is an toolSet over a store the fuzz iterations share (opening
// one per input would dominate the run). Its drain is already over, so
// mempalace_event_wait answers at once instead of blocking the fuzzer.
func fuzzTools(f *testing.F, readOnly bool) (*toolSet, *store.Store) {
	f.Helper()
	st, err := store.Open(context.Background(), store.Config{Dir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	drained, cancel := context.WithCancel(context.Background())
	cancel()
	return &toolSet{
		log: st, readOnly: readOnly, drain: drained, logger: nodetest.DiscardLogger(),
		roster:  func(context.Context) (any, error) { return map[string]any{"peers": []any{}}, nil },
		metrics: newCallMetrics(nil), events: newEventTexts(eventTextsBudget),
	}, st
}

// argErrorPrefixes are the beginnings of every -32602 text the argument
// handling documents (docs/compatibility.md#mcp-envelope-and-argument-handling).
var argErrorPrefixes = []string{
	"Invalid params: 'name' must be a string and 'arguments' an object",
	"Unknown parameter ", "Unknown parameters ",
	"Invalid value for parameter '",
	"Missing required parameter ", "Missing required parameters ",
}

// FuzzToolArguments runs any arguments object through any tool, as POST
// /mcp does after the envelope: parseArgs (a one-pass reader) keeps what
// encoding/json reads (the keys, the last value of a repeated key, the
// values), and the call either
// succeeds, or is refused with one of the documented JSON-RPC errors or
// with a {"error": …} payload, and in every refusal nothing is stored.
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []struct {
		tool uint8
		args string
	}{
		{0, `{"type":"task.request","stream":"s","room":"r","from_agent":"a","to_agent":"b","body":"hi","metadata":{"k":[1,2]}}`},
		{0, `{"type":"t","stream":"s","room":"r","from_agent":"a","idempotency_key":"k1"}`},
		{0, `{"type":"T","stream":"","room":"r","from_agent":"a\u0000"}`},
		{0, `{"type":"t","stream":"s","room":"r","from_agent":"a","artifact_ids":["art_missing"]}`},
		{0, `{"type":"t","type":"u","stream":"s","room":"r","from_agent":"a","bogus":1}`},
		{1, `{"stream":"s","room":"r","from_agent":"a","to_agent":"b","title":"t","body":"do it"}`},
		{2, `{"limit":"1_0","stream":"s"}`},
		{2, `{"limit":1e400}`},
		{2, `{"limit":-3.9,"cursor":"c1.e30"}`},
		{2, `{"since_event_id":"evt_nope","order":"desc"}`},
		{2, `{"order":"A\udcffB","since_created_at":"\ud800x","type":"\ud83d\ude00"}`},
		{0, `{"type":"t","stream":"s\udcff","room":"r","from_agent":"a","body":"\ud800\ud800\udc00","metadata":{"\udcff":["\udfff"]}}`},
		{3, `{"timeout_ms":"  42 ","limit":true}`},
		{4, `{"event_id":"evt_x","from_agent":"a","status":"applied"}`},
		{5, `{"agent":"a","stream":"s","limit":0}`},
		{6, `{"kind":"patch","content":"--- a\n+++ b\n","created_by":"a"}`},
		{6, `{"kind":"diff","content":"","created_by":"a"}`},
		{7, `{"artifact_id":"art_x"}`},
		{8, `{"stream":"s","room":"r","from_agent":"a","content":"x","title":"t"}`},
		{9, `{}`},
		{9, `null`},
		{2, `[]`},
		{2, `{"a":`},
	} {
		f.Add(seed.tool, []byte(seed.args), false)
	}
	f.Add(uint8(0), []byte(`{"type":"t","stream":"s","room":"r","from_agent":"a"}`), true)
	tools, st := fuzzTools(f, false)
	roTools := *tools
	roTools.readOnly = true
	specs := catalog()
	f.Fuzz(func(t *testing.T, toolIndex uint8, raw []byte, readOnly bool) {
		spec := specs[int(toolIndex)%len(specs)]
		checkParsedArgs(t, raw)
		tt := tools
		if readOnly {
			tt = &roTools
		}
		ctx := context.Background()
		before, err := st.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, outcome, callErr := tt.call(ctx, spec, json.RawMessage(raw))
		after, err := st.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if outcome != outcomeOK && (after.Events != before.Events || after.Artifacts != before.Artifacts) {
			t.Fatalf("%s refused (%s) but stored: events %d -> %d, artifacts %d -> %d",
				spec.name, outcome, before.Events, after.Events, before.Artifacts, after.Artifacts)
		}
		if !spec.writer && (after.Events != before.Events || after.Artifacts != before.Artifacts) {
			t.Fatalf("reader %s stored something", spec.name)
		}
		checkCallOutcome(t, spec, readOnly, res, outcome, callErr)
	})
}

// checkParsedArgs compares parseArgs with encoding/json on raw: a JSON
// object decodes to the same keys and values, and anything parseArgs
// accepts is such an object (or empty, or null).
func checkParsedArgs(t *testing.T, raw []byte) {
	t.Helper()
	a, err := parseArgs(raw)
	trimmed := bytes.TrimSpace(raw)
	var want map[string]json.RawMessage
	isObj := isObject(trimmed) && json.Unmarshal(trimmed, &want) == nil
	switch {
	case len(trimmed) == 0 || string(trimmed) == "null":
		if err != nil || len(a.args) != 0 {
			t.Fatalf("empty arguments: %v %v", a, err)
		}
		return
	case isObj && err != nil:
		t.Fatalf("valid object %q refused: %v", raw, err)
	case !isObj && err == nil && json.Valid(trimmed):
		t.Fatalf("%q is not an object but parsed as %v", raw, argKeys(a))
	case err != nil:
		return
	}
	if !isObj {
		return // accepted a prefix of an invalid document; the envelope check refuses those first
	}
	if len(a.args) != len(want) {
		t.Fatalf("keys %q, encoding/json reads %d", argKeys(a), len(want))
	}
	for _, k := range argKeys(a) {
		v, ok := want[k]
		if !ok {
			t.Fatalf("key %q not in the object", k)
		}
		exp, err := stdJSONValue(v)
		if err != nil {
			t.Fatalf("decode %q: %v", v, err)
		}
		if got := withoutSurrogates(a.get(k)); !reflect.DeepEqual(got, exp) {
			t.Fatalf("argument %q = %#v, encoding/json reads %#v (the last value wins)", k, got, exp)
		}
	}
}

// withoutSurrogates is v with each lone surrogate that parseArgs keeps
// (as WTF-8) made U+FFFD, as encoding/json decodes one.
func withoutSurrogates(v any) any {
	switch x := v.(type) {
	case string:
		var b strings.Builder
		for i := 0; i < len(x); {
			if i+3 <= len(x) && x[i] == 0xED && x[i+1] >= 0xA0 && x[i+1] <= 0xBF {
				b.WriteRune(utf8.RuneError)
				i += 3
				continue
			}
			b.WriteByte(x[i])
			i++
		}
		return b.String()
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = withoutSurrogates(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[withoutSurrogates(k).(string)] = withoutSurrogates(e)
		}
		return out
	}
	return v
}

// argKeys are the keys of a in order.
func argKeys(a *callArgs) []string {
	keys := make([]string, len(a.args))
	for i, arg := range a.args {
		keys[i] = arg.key
	}
	return keys
}

// stdJSONValue is encoding/json's reading of one value with UseNumber,
// the reference the argument parser must agree with.
func stdJSONValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// checkCallOutcome checks that a call's answer is one the tool documents.
func checkCallOutcome(t *testing.T, spec *toolSpec, readOnly bool, res toolResult, outcome string, err *jsonrpc.Error) {
	t.Helper()
	switch outcome {
	case outcomeInvalid:
		if err == nil || err.Code != jsonrpc.CodeInvalidParams || !hasAnyPrefix(err.Message, argErrorPrefixes) {
			t.Fatalf("%s invalid: %v", spec.name, err)
		}
	case outcomeReadOnly:
		if !readOnly || !spec.writer || err == nil || err.Code != codeReadOnly {
			t.Fatalf("%s read-only refusal (read-only %v): %v", spec.name, readOnly, err)
		}
	case outcomeOK, outcomeFailed:
		text := res.appendText(nil)
		if err != nil || len(text) == 0 || res.failed != (outcome == outcomeFailed) {
			t.Fatalf("%s %s: %q failed=%v %v", spec.name, outcome, text, res.failed, err)
		}
		var payload map[string]any
		if jerr := json.Unmarshal(text, &payload); jerr != nil {
			t.Fatalf("%s payload is not a JSON object: %v", spec.name, jerr)
		}
		if msg, _ := payload["error"].(string); (outcome == outcomeFailed) != (msg != "") {
			t.Fatalf("%s %s with payload %v", spec.name, outcome, payload)
		}
		if spec.writer && payload["success"] != (outcome == outcomeOK) {
			t.Fatalf("%s %s: success %v", spec.name, outcome, payload["success"])
		}
	default:
		t.Fatalf("%s: outcome %s from input alone: %v", spec.name, outcome, err)
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// rpcErrorTexts are the JSON-RPC errors the screen answers itself, by
// code (docs/compatibility.md#mcp-envelope-and-argument-handling).
var rpcErrorTexts = map[int64][]string{
	jsonrpc.CodeParseError:     {"Parse error"},
	jsonrpc.CodeInvalidRequest: {"Invalid Request"},
	jsonrpc.CodeInvalidParams: {"Invalid params: 'name' is required for tools/call",
		"Invalid params: 'name' must be a string and 'arguments' an object"},
	jsonrpc.CodeMethodNotFound: {"Unknown method: ", "Unknown tool: "},
}

// FuzzJSONRPCBody runs any body through the screening of POST /mcp: it is
// either answered by the hub's own errors (a JSON-RPC error object with
// one of its texts, or 202 for a notification) or forwarded to the SDK as
// one JSON object with a method the SDK serves, tools/call only for a
// known tool, initialize always with a protocolVersion.
func FuzzJSONRPCBody(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"nope"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7,"arguments":[]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"bogus"}`,
		`{"jsonrpc":"2.0","id":1,"method":["x"]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"id":1,"method":"tools/list","method":"ping"}`,
		"\xff{}",
		``,
		`{`,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":5}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":[]}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":null}}`,
	} {
		f.Add([]byte(seed))
	}
	specs := map[string]*toolSpec{}
	for _, s := range catalog() {
		specs[s.name] = s
	}
	h := &Handler{specs: specs}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		_, forward, done := h.screen(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil), body)
		if done {
			checkScreenAnswer(t, body, rec)
			return
		}
		if rec.Body.Len() != 0 || rec.Code != http.StatusOK || len(rec.Header()) != 0 {
			t.Fatalf("forwarded %q after answering %d %q", body, rec.Code, rec.Body)
		}
		checkForwarded(t, forward, specs)
	})
}

func checkScreenAnswer(t *testing.T, body []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code == http.StatusAccepted {
		if rec.Body.Len() != 0 {
			t.Fatalf("202 with a body: %q", rec.Body)
		}
		return
	}
	var reply struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &reply); err != nil || reply.JSONRPC != "2.0" || reply.Error == nil {
		t.Fatalf("answer to %q is not a JSON-RPC error: %d %q (%v)", body, rec.Code, rec.Body, err)
	}
	if !hasAnyPrefix(reply.Error.Message, rpcErrorTexts[reply.Error.Code]) {
		t.Fatalf("answer to %q: undocumented error %d %q", body, reply.Error.Code, reply.Error.Message)
	}
	if want := http.StatusOK; reply.Error.Code == jsonrpc.CodeParseError {
		if rec.Code != http.StatusBadRequest || (utf8.Valid(body) && json.Valid(body)) {
			t.Fatalf("parse error for %q: status %d", body, rec.Code)
		}
	} else if rec.Code != want {
		t.Fatalf("error %d with status %d", reply.Error.Code, rec.Code)
	}
}

func checkForwarded(t *testing.T, forward []byte, specs map[string]*toolSpec) {
	t.Helper()
	var env struct {
		Method any             `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(forward, &env); err != nil || !isObject(forward) {
		t.Fatalf("forwarded %q: not a request object (%v)", forward, err)
	}
	switch env.Method {
	case "ping", "tools/list", "server/discover", "resources/list", "resources/templates/list", "resources/read":
	case "initialize":
		var p struct {
			ProtocolVersion json.RawMessage `json:"protocolVersion"`
		}
		if json.Unmarshal(env.Params, &p) == nil && p.ProtocolVersion == nil {
			t.Fatalf("initialize forwarded without a protocolVersion: %q", forward)
		}
	case "tools/call":
		var p struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(env.Params, &p); err != nil || specs[p.Name] == nil {
			t.Fatalf("tools/call forwarded for no known tool: %q (%v)", forward, err)
		}
	default:
		t.Fatalf("forwarded method %v", env.Method)
	}
}
