package node

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodingJSONString is a Go string as encoding/json writes it, with or
// without HTML escaping.
func encodingJSONString(t testing.TB, s string, html bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var jsonStringCases = []string{
	"", "plain", `quote " backslash \ slash /`, "\b\f\n\r\t\x00\x01\x1f\x7f",
	"<a href='x'>&amp;</a>", "é ü 🙂 \u2028 \u2029 \u2027 \u202a", "\xff bad \xc3 utf-8 \xed\xa0\x80",
	"{\n  \"success\": true\n}",
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range jsonStringCases {
		for _, html := range []bool{true, false} {
			got := appendJSONString([]byte("x"), []byte(s), html)
			if want := append([]byte("x"), encodingJSONString(t, s, html)...); !bytes.Equal(got, want) {
				t.Errorf("%q html=%v: %s, want %s", s, html, got, want)
			}
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringCases {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		if got, want := appendJSONString(nil, []byte(s), html), encodingJSONString(t, s, html); !bytes.Equal(got, want) {
			t.Fatalf("%q html=%v: %s, want %s", s, html, got, want)
		}
	})
}

// TestTextResponseIsSDKs holds textResponse to what the SDK's encoders
// make of the same id and text.
func TestTextResponseIsSDKs(t *testing.T) {
	for _, raw := range []any{float64(0), float64(-7), float64(1 << 53), "", "req-1", "<&>é🙂\u2028 x"} {
		id, err := jsonrpc.MakeID(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range jsonStringCases {
			result, err := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}})
			if err != nil {
				t.Fatal(err)
			}
			want, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: result})
			if err != nil {
				t.Fatal(err)
			}
			got, err := textResponse(id, []byte(text))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("id %v, text %q:\n got %s %v\nwant %s", raw, text, got, err, want)
			}
		}
	}
}
