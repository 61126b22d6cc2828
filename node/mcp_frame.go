package node

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// textResponse is the JSON-RPC response carrying a result of one text
// content, byte for byte as the SDK writes it, built in one buffer:
//   - the frame is EncodeMessage's: {"jsonrpc":"2.0","id":...,"result":...}
//     with the id as encoding/json writes it without HTML escaping (an
//     int64, or a string);
//   - the result is mcp.CallToolResult with one mcp.TextContent as
//     encoding/json's defaults marshal it, HTML characters escaped:
//     {"content":[{"type":"text","text":...}]}.
//
// TestMCPFastPathMatchesSDK holds it to the SDK's bytes.
func textResponse(id jsonrpc.ID, text []byte) ([]byte, error) {
	out := make([]byte, 0, len(text)+len(text)/8+128)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	switch v := id.Raw().(type) {
	case int64:
		out = strconv.AppendInt(out, v, 10)
	case string:
		out = appendJSONString(out, []byte(v), false)
	default:
		return nil, fmt.Errorf("unexpected JSON-RPC id %v", v)
	}
	out = append(out, `,"result":{"content":[{"type":"text","text":`...)
	out = appendJSONString(out, text, true)
	return append(out, "}]}}"...), nil
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
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
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
	return append(append(dst, s[run:]...), '"')
}
