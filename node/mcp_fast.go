package node

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sdkMaxDepth is the deepest JSON nesting the SDK's decoder accepts in a
// request body; a deeper body is refused there, so it goes there.
const sdkMaxDepth = 1000

// maxExactID bounds the integer ids the fast path answers: the SDK reads an
// id as a float64, so beyond 2^53 it echoes a rounded id back.
const maxExactID = 1 << 53

// fastPath answers the requests nearly every client sends - one tools/call,
// or a ping - without the SDK's per-request machinery (a JSON-RPC
// connection and server session per POST, a second decode of the body).
// It runs the tools as the SDK server's handlers do (mcpTools.run), on a
// context with the same values (the auth middleware's included) and no
// cancellation, and writes the status, headers and bytes the SDK path
// writes: the JSON-RPC frame is the SDK's own jsonrpc.EncodeMessage, and
// the result inside it is the SDK's one-text-content encoding.
// TestMCPFastPathMatchesSDK holds the two paths to the same bytes.
//
// A request goes to the SDK instead when anything about it could make the
// SDK answer differently: a protocol version header outside the
// negotiated list (the 2026 protocol has its own rules), Last-Event-ID,
// members beyond jsonrpc/id/method/params or name/arguments (_meta and
// the multi-round-trip fields), a jsonrpc tag other than "2.0", an id the
// SDK would alter (a fraction, an exponent, beyond 2^53) or a string id
// with escapes, or a body nested deeper than the SDK's decoder allows.
type fastPath struct {
	tools    *mcpTools
	specs    map[string]*toolSpec
	versions []string // the protocol versions the server negotiates
}

// fastCall is one request the fast path answers.
type fastCall struct {
	id   jsonrpc.ID
	ping bool
	tool string
	args json.RawMessage
}

// accept reports whether the fast path answers the request, which the
// compatibility screen has let through. A nil fastPath answers none (the
// tests' way to send everything to the SDK).
func (f *fastPath) accept(r *http.Request, req rpcRequest, body []byte) (fastCall, bool) {
	if f == nil {
		return fastCall{}, false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(f.versions, v) {
		return fastCall{}, false
	}
	if len(r.Header.Values("Last-Event-ID")) > 0 {
		return fastCall{}, false
	}
	// Counting brackets bounds the nesting from above without a parse.
	if bytes.Count(body, []byte("{"))+bytes.Count(body, []byte("[")) > sdkMaxDepth {
		return fastCall{}, false
	}
	if !onlyKeys(req.env, "jsonrpc", "id", "method", "params") || !isString(req.env.get("jsonrpc"), "2.0") {
		return fastCall{}, false
	}
	id, ok := exactID(req.env.get("id"))
	if !ok {
		return fastCall{}, false
	}
	switch {
	case req.method == "ping" && req.env.get("params") == nil:
		return fastCall{id: id, ping: true}, true
	case req.method == "tools/call" && onlyKeys(req.params, "name", "arguments") && f.specs[req.tool] != nil:
		return fastCall{id: id, tool: req.tool, args: req.params.get("arguments")}, true
	}
	return fastCall{}, false
}

// serve runs the call and writes the answer as the SDK's stateless JSON
// response does.
func (f *fastPath) serve(w http.ResponseWriter, r *http.Request, call fastCall) {
	var (
		data []byte
		err  error
	)
	if call.ping {
		data, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: call.id, Result: json.RawMessage("{}")})
	} else {
		// The SDK hands tool handlers the request's values without its
		// cancellation; withCaller keeps the cancellation for event_wait.
		ctx := context.WithoutCancel(withCaller(r.Context()))
		text, toolErr := f.tools.run(ctx, f.specs[call.tool], call.args)
		if toolErr != nil {
			data, err = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: call.id, Error: toolErr})
		} else {
			data, err = textResponse(call.id, text)
		}
	}
	if err != nil {
		writeRPCError(w, http.StatusInternalServerError, nil, jsonrpc.CodeInternalError, "Internal error")
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}

// exactID is a request id the SDK echoes unchanged: a string without
// escapes, or an integer literal within ±2^53.
func exactID(raw json.RawMessage) (jsonrpc.ID, bool) {
	var v any
	switch {
	case len(raw) >= 2 && raw[0] == '"':
		if bytes.IndexByte(raw, '\\') >= 0 {
			return jsonrpc.ID{}, false
		}
		v = string(raw[1 : len(raw)-1])
	default:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > maxExactID || n < -maxExactID {
			return jsonrpc.ID{}, false
		}
		v = float64(n)
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil
}

// onlyKeys reports whether every member of m is one of keys.
func onlyKeys(m members, keys ...string) bool {
	for _, member := range m {
		if !slices.Contains(keys, member.key) {
			return false
		}
	}
	return true
}

// isString reports whether raw is the JSON string want.
func isString(raw json.RawMessage, want string) bool {
	s, err := jsonValue(raw)
	return err == nil && s == want
}
