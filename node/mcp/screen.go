package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
)

// oldestProtocolVersion is what the hub assumes when initialize names no
// protocol version.
const oldestProtocolVersion = "2024-11-05"

// rpcRequest is a request body the screen let through: its members, its
// method, a tools/call's params and tool name, and the protocol version
// it names (requestVersion).
type rpcRequest struct {
	env     pyjson.RawObject
	method  any
	params  pyjson.RawObject
	tool    string
	version string
}

// sessionless reports whether the request follows the sessionless
// protocol, whose clients get the specification's answers where the
// hub's differ.
func (r *rpcRequest) sessionless() bool { return r.version >= sessionlessSince }

// screen reads a request body as the Python hub does and keeps the hub's
// JSON-RPC behaviour where it differs from the SDK's (docs/compatibility.md#mcp-envelope-and-argument-handling, docs/compatibility.md#request-policy):
//
//   - any Accept and Content-Type: clients that POST a bare tools/call with
//     only "Accept: application/json" (or none) and no initialize work, and
//     always get application/json back;
//   - invalid JSON is 400 -32700 "Parse error"; a body that is not one
//     JSON object (a batch included) is -32600 "Invalid Request";
//   - notifications (notifications/* methods, with or without an id, and
//     unknown methods without one) get 202 and no body; other requests
//     without an id are answered, with id null;
//   - unknown methods are -32601 "Unknown method: <name>";
//   - tools/call's envelope checks, in the hub's order and with its texts,
//     up to "Unknown tool: <name>" (-32601, which the SDK would rewrite);
//   - initialize reads only its protocol version: none negotiates
//     2024-11-05, one that is not a string the newest;
//   - ping and tools/list ignore their params (but in the sessionless
//     protocol, whose params carry the request's version and the client's
//     capabilities);
//   - server/discover, which the hub does not know, is the SDK's, as are
//     the resources of a client that names a protocol version;
//   - a request without "jsonrpc": "2.0" is answered as if it had it;
//   - the answer carries the request's id as Python decoded it, also
//     where the SDK would round it or refuse it (answerID, sdkAnswer), and
//     tools/list's result only its tools (sdk.go).
//
// It answers the refusals and notifications itself and returns done;
// otherwise it returns the request and the body to forward to the SDK,
// should nativeCall leave the request to it. Everything else, argument
// handling included, happens in the tools, whichever path answers.
func (h *Handler) screen(w http.ResponseWriter, r *http.Request, body []byte) (req rpcRequest, forward []byte, done bool) {
	if !utf8.Valid(body) {
		writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "Parse error")
		return req, nil, true
	}
	env, err := jsonText.Members(body)
	switch {
	case errors.Is(err, pyjson.ErrSyntax):
		writeRPCError(w, http.StatusBadRequest, nil, jsonrpc.CodeParseError, "Parse error")
		return req, nil, true
	case err != nil:
		writeRPCError(w, http.StatusOK, nil, jsonrpc.CodeInvalidRequest, "Invalid Request")
		return req, nil, true
	}
	req.env = env
	req.version = requestVersion(r, env.Get("params"))
	id := req.env.Get("id")
	req.method, _ = jsonText.Value(req.env.Get("method"))
	if method, _ := req.method.(string); strings.HasPrefix(method, "notifications/") {
		w.WriteHeader(http.StatusAccepted) // a notification, even with an id: no response
		return req, nil, true
	}
	if !isString(req.env.Get("jsonrpc"), "2.0") { // the hub never reads it; the SDK requires it
		body = withMember(body, "jsonrpc", json.RawMessage(`"2.0"`))
		req.env, _ = jsonText.Members(body) // the JSON encoding/json just wrote
	}
	switch req.method {
	case "initialize":
		return req, withOnlyVersion(req.env), false
	case "server/discover":
		return req, body, false
	case "resources/list", "resources/templates/list", "resources/read":
		if req.version != "" { // the hub has no resources: its bare clients get its answer
			return req, body, false
		}
	case "ping", "tools/list":
		if req.env.Get("params") != nil && !req.sessionless() { // the hub reads none; the SDK refuses some
			body = withMember(body, "params", nil)
			req.env, _ = jsonText.Members(body) // the JSON encoding/json just wrote
		}
		return req, body, false
	case "tools/call":
		var code int64
		var msg string
		if req.params, req.tool, code, msg = h.checkCall(req.env.Get("params")); code != 0 {
			writeRPCError(w, http.StatusOK, id, code, msg)
			return req, nil, true
		}
		return req, body, false
	}
	if isNull(id) { // an unknown method without an id is a notification too
		w.WriteHeader(http.StatusAccepted)
		return req, nil, true
	}
	writeRPCError(w, http.StatusOK, id, jsonrpc.CodeMethodNotFound, unknownMethod(req.method))
	return req, nil, true
}

// checkCall applies the hub's tools/call envelope checks in order and
// returns the params' members and the tool; a non-zero code refuses the
// call. raw is a member of the validated body (or absent).
func (h *Handler) checkCall(raw json.RawMessage) (params pyjson.RawObject, tool string, code int64, msg string) {
	params, err := jsonText.Members(raw)
	if err != nil || params.Get("name") == nil {
		return nil, "", jsonrpc.CodeInvalidParams, "Invalid params: 'name' is required for tools/call"
	}
	name, _ := jsonText.Value(params.Get("name"))
	tool, isString := name.(string)
	if args := params.Get("arguments"); !isString || (args != nil && !isNull(args) && !isObject(args)) {
		return nil, "", jsonrpc.CodeInvalidParams, "Invalid params: 'name' must be a string and 'arguments' an object"
	}
	if h.specs[tool] == nil {
		return nil, "", jsonrpc.CodeMethodNotFound, "Unknown tool: " + tool
	}
	return params, tool, 0, ""
}

// unknownMethod is the hub's text, which names the type of a method that
// is not a string as Python does.
func unknownMethod(method any) string {
	if s, ok := method.(string); ok {
		return "Unknown method: " + s
	}
	return "Unknown method: expected a string, got " + pyrepr.TypeName(method)
}

// withMember is the JSON object body with key set to value, or without
// key when value is nil.
func withMember(body []byte, key string, value json.RawMessage) []byte {
	env, _ := jsonText.Members(body) // a body the screen forwards is one object
	out := env.Map()
	out[key] = value
	if value == nil {
		delete(out, key)
	}
	data, _ := json.Marshal(out) // raw JSON values always encode
	return data
}

// withOnlyVersion is an initialize request whose params hold only the
// protocol version, which is all the hub reads of them: the client's when
// it is a string (the SDK negotiates it), the newest supported when it is
// anything else, 2024-11-05 when there is none. Capabilities or client
// info the SDK could not decode therefore never fail an initialize.
func withOnlyVersion(env pyjson.RawObject) []byte {
	var params pyjson.RawObject
	if isObject(env.Get("params")) {
		params, _ = jsonText.Members(env.Get("params")) // a member of a valid body
	}
	version := json.RawMessage(`"` + oldestProtocolVersion + `"`)
	if v := params.Get("protocolVersion"); v != nil {
		version = v
		if s, _ := jsonText.Value(v); !isStringValue(s) {
			version = json.RawMessage(`"` + initializeVersions[0] + `"`)
		}
	}
	out := env.Map()
	out["params"], _ = json.Marshal(map[string]json.RawMessage{"protocolVersion": version}) // raw JSON values always encode
	data, _ := json.Marshal(out)
	return data
}

func isStringValue(v any) bool {
	_, ok := v.(string)
	return ok
}

func isObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}
