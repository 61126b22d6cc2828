package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"unicode/utf8"

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

// jsonEscapes says how appendJSONString writes each ASCII byte: 0 as it
// is, 'u' as \u00xx, 'h' as \u00xx when escaping HTML, any other letter
// as a backslash and that letter.
var jsonEscapes = func() (t [utf8.RuneSelf]byte) {
	for c := range 0x20 {
		t[c] = 'u'
	}
	t['"'], t['\\'] = '"', '\\'
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = 'b', 'f', 'n', 'r', 't'
	t['<'], t['>'], t['&'] = 'h', 'h', 'h'
	return t
}()

// appendJSONString appends s as a JSON string the way encoding/json
// writes a Go string: '"' and '\' escaped with a backslash; \b, \f, \n, \r
// and \t by name and the other control characters as \u00xx; U+2028 and
// U+2029 as \u2028 and \u2029; each byte of invalid UTF-8 as \ufffd; and
// with html, '<', '>' and '&' as \u003c, \u003e and \u0026. Everything
// else is copied, in runs.
func appendJSONString(dst, s []byte, html bool) []byte {
	return append(appendJSONChars(append(dst, '"'), s, html), '"')
}

// appendJSONChars is appendJSONString without the quotes: what stands
// between them. The escapes of a text are the escapes of its parts in
// turn, so a text can be escaped piece by piece.
func appendJSONChars(dst, s []byte, html bool) []byte {
	const hexDigits = "0123456789abcdef"
	run := 0 // start of the bytes not yet copied
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			esc := jsonEscapes[c]
			if esc == 0 || (esc == 'h' && !html) {
				i++
				continue
			}
			dst = append(dst, s[run:i]...)
			if esc == 'u' || esc == 'h' {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				dst = append(dst, '\\', esc)
			}
			i++
			run = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[run:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[run:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		run = i
	}
	return append(dst, s[run:]...)
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
