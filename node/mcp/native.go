package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/lsnode/lsnode/internal/jsonstr"
	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// sdkMaxDepth is the deepest JSON nesting the SDK's decoder accepts in a
// request body; a deeper body is refused there, so it goes there.
const sdkMaxDepth = 1000

// maxExactID bounds the integer ids the SDK echoes unchanged: it reads an
// id as a float64, so beyond 2^53 it echoes a rounded id back.
const maxExactID = 1 << 53

// nativeCall is one request the handler answers without the SDK.
type nativeCall struct {
	id   []byte // the answer's id, as the answer writes it
	ping bool
	tool string
	args json.RawMessage
	// structured: the client's era gets structured content
	// (wantsStructured); sessionless: it speaks the sessionless protocol,
	// whose answers carry the server's identity (sessionless.go).
	structured, sessionless bool
}

// nativeCall is the one place that decides what the go-sdk is used for.
// The handler answers itself (the fast path) the requests nearly every
// client sends - one tools/call of a known tool, or a ping - without the
// SDK's per-request machinery (a JSON-RPC connection and server session
// per POST, a second decode of the body). BenchmarkMCPAppend (node)
// measures what that saves: store=none is an event_append the handler
// answers, store=none,via=sdk the same call with an empty _meta in its
// params, which the SDK answers (see docs/benchmarks.md). Everything
// else goes to the SDK: initialize, tools/list and server/discover (the
// protocol negotiation, server info and tool schemas are the SDK's), and
// any request the SDK could answer differently:
//
//   - a protocol version header outside the negotiated list and the
//     sessionless protocol's, or Last-Event-ID;
//   - members beyond jsonrpc/id/method/params, or name/arguments in the
//     params (_meta and the multi-round-trip fields), but for a
//     sessionless tools/call the _meta that protocol requires, when the
//     SDK would accept it (sessionlessCall);
//   - a ping in the sessionless protocol, which has none;
//   - an id neither the SDK echoes nor the hub's encoder writes (a string
//     with escapes, a number beyond float64 such as 1e400);
//   - a body nested deeper than the SDK's decoder allows.
//
// TestMCPFastPathMatchesSDK and TestMCPSessionlessFastPathMatchesSDK
// hold the two paths to the same status, headers and bytes.
func (h *Handler) nativeCall(r *http.Request, req rpcRequest, body []byte) (nativeCall, bool) {
	if !h.native {
		return nativeCall{}, false
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	sessionless := version == sessionlessSince
	if version != "" && !sessionless && !slices.Contains(initializeVersions, version) {
		return nativeCall{}, false
	}
	if len(r.Header.Values("Last-Event-ID")) > 0 {
		return nativeCall{}, false
	}
	// Counting brackets bounds the nesting from above without a parse.
	if bytes.Count(body, []byte("{"))+bytes.Count(body, []byte("[")) > sdkMaxDepth {
		return nativeCall{}, false
	}
	if !onlyKeys(req.env, "jsonrpc", "id", "method", "params") {
		return nativeCall{}, false
	}
	id, ok := answerID(req.env.Get("id"))
	if !ok {
		return nativeCall{}, false
	}
	call := nativeCall{id: id, tool: req.tool, args: req.params.Get("arguments"), structured: wantsStructured(version), sessionless: sessionless}
	switch {
	case sessionless:
		return call, req.method == "tools/call" && sessionlessCall(r, req)
	case req.method == "ping" && req.env.Get("params") == nil:
		return nativeCall{id: id, ping: true}, true
	case req.method == "tools/call" && onlyKeys(req.params, "name", "arguments"):
		return call, true
	}
	return nativeCall{}, false
}

// serveNative runs the call and writes the answer as the SDK's stateless
// JSON response does.
func (h *Handler) serveNative(w http.ResponseWriter, r *http.Request, call nativeCall) {
	var meta []byte
	if call.sessionless {
		meta = h.serverMeta
	}
	status := http.StatusOK
	var data []byte
	if call.ping {
		data = emptyResponse(call.id)
	} else {
		// The SDK hands tool handlers the request's values without its
		// cancellation; withCaller keeps the cancellation for event_wait.
		ctx := context.WithoutCancel(withCaller(r.Context()))
		res, rpcErr := h.tools.run(ctx, h.specs[call.tool], call.args, call.structured)
		switch {
		case rpcErr == nil:
			data = textResponse(call.id, res, meta)
		case call.sessionless:
			status, data = sessionlessErrorStatus(rpcErr), errorResponse(call.id, rpcErr)
		default:
			data = errorResponse(call.id, rpcErr)
		}
	}
	hd := w.Header()
	hd.Set("Cache-Control", "no-cache, no-transform")
	hd.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// answerID is the id of the answer to a request with id raw, as the
// answer writes it: an id the SDK echoes unchanged as the SDK writes it
// (exactID), any other as the hub writes it (hubID). false for an id
// neither writes: only the SDK can say what becomes of it.
func answerID(raw json.RawMessage) ([]byte, bool) {
	if id, ok := exactID(raw); ok {
		return idText(id), true
	}
	shown := hubID(raw)
	return shown, shown != nil
}

// idText is id as the SDK writes it: encoding/json without HTML escaping
// of an int64 or a string (the only ids MakeID makes of a request's).
func idText(id jsonrpc.ID) []byte {
	if s, ok := id.Raw().(string); ok {
		return jsonstr.Append(nil, s, false)
	}
	return strconv.AppendInt(nil, id.Raw().(int64), 10)
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

// hubID is the id the answer must carry when the SDK would alter it or
// take it for a notification's (none, or null): as Python decoded it and
// json.dumps writes it. nil for an id the SDK echoes right (a string, an
// integer within 2^53), and for one the hub cannot write either (1e400).
func hubID(id json.RawMessage) []byte {
	if isNull(id) {
		return []byte("null")
	}
	if _, ok := exactID(id); ok || id[0] == '"' {
		return nil
	}
	shown, err := pyjson.Compact(id)
	if err != nil {
		return nil
	}
	return shown
}

// onlyKeys reports whether every member of m is one of keys.
func onlyKeys(m pyjson.RawObject, keys ...string) bool {
	for _, member := range m {
		if !slices.Contains(keys, member.Key) {
			return false
		}
	}
	return true
}

// isString reports whether raw is the JSON string want.
func isString(raw json.RawMessage, want string) bool {
	s, err := jsonText.Value(raw)
	return err == nil && s == want
}
