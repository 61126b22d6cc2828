package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// The JSON-RPC responses of the native path, byte for byte as the SDK
// writes them (jsonrpc.EncodeMessage): {"jsonrpc":"2.0","id":..., then
// "result" or "error", encoding/json's field order, no HTML escaping in
// the frame. id is the answer's id as answerID writes it.
// TestMCPFastPathMatchesSDK holds them to the SDK's bytes.

// textResponse is the response carrying a tool's result, built in one
// buffer: the go-sdk's CallToolResult with one TextContent as
// encoding/json's defaults marshal it, HTML characters escaped:
// {"content":[{"type":"text","text":...}],"structuredContent":...}, with
// "isError":true when the result reports a failure. In the sessionless
// protocol (meta, the server's identity as serverMeta writes it, not nil)
// the result opens with "_meta":meta and closes with
// "resultType":"complete", as the SDK annotates every result there.
func textResponse(id []byte, res toolResult, meta []byte) []byte {
	size := res.size()
	hint := size + size/8 + 128 + len(meta)
	if res.structured {
		hint += size
	}
	out := make([]byte, 0, hint)
	out = append(append(append(out, `{"jsonrpc":"2.0","id":`...), id...), `,"result":{`...)
	if meta != nil {
		out = append(append(append(out, `"_meta":`...), meta...), ',')
	}
	out = res.appendQuoted(append(out, `"content":[{"type":"text","text":"`...))
	out = append(out, `"}]`...)
	if res.structured {
		out = res.appendStructured(append(out, `,"structuredContent":`...))
	}
	if res.failed {
		out = append(out, `,"isError":true`...)
	}
	if meta != nil {
		out = append(out, `,"resultType":"complete"`...)
	}
	return append(out, "}}"...)
}

// emptyResponse is the response with an empty result (ping's).
func emptyResponse(id []byte) []byte {
	return append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"result":{}}`...)
}

// errorResponse is the response carrying err.
func errorResponse(id []byte, err *jsonrpc.Error) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"error":`)
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(err) // its data is JSON the tools marshalled: it always encodes
	return append(bytes.TrimRight(b.Bytes(), "\n"), '}')
}

// writeRPCError answers with one JSON-RPC error, formatted as the hub's
// json.dumps writes it.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	body, err := rpcError(id, code, msg)
	if err != nil { // an id pyjson cannot write, such as 1e400
		body, _ = rpcError(nil, code, msg)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func rpcError(id json.RawMessage, code int64, msg string) ([]byte, error) {
	var idValue any
	if !isNull(id) {
		idValue = id
	}
	return pyjson.Compact(pyjson.Object{
		{Key: "jsonrpc", Value: "2.0"},
		{Key: "id", Value: idValue},
		{Key: "error", Value: pyjson.Object{{Key: "code", Value: code}, {Key: "message", Value: msg}}},
	})
}
