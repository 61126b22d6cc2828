package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

var jsonStringCases = []string{
	"", "plain", `quote " backslash \ slash /`, "\b\f\n\r\t\x00\x01\x1f\x7f",
	"<a href='x'>&amp;</a>", "é ü 🙂 \u2028 \u2029 \u2027 \u202a", "\xff bad \xc3 utf-8 \xed\xa0\x80",
	"{\n  \"success\": true\n}",
}

// TestTextResponseIsSDKs holds textResponse to what the SDK's encoders
// make of the same id and text.
func TestTextResponseIsSDKs(t *testing.T) {
	for _, raw := range []any{float64(0), float64(-7), float64(1 << 53), "", "req-1", "<&>é🙂\u2028 x"} {
		id, err := jsonrpc.MakeID(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range jsonStringCases {
			text, err := pyjson.DumpsIndent(pyjson.Object{{Key: "error", Value: s}, {Key: "n", Value: []any{1, 2.5, nil, true}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, failed := range []bool{false, true} {
				result, err := json.Marshal(&gosdk.CallToolResult{
					Content:           []gosdk.Content{&gosdk.TextContent{Text: string(text)}},
					StructuredContent: json.RawMessage(text),
					IsError:           failed,
				})
				if err != nil {
					t.Fatal(err)
				}
				want, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: result})
				if err != nil {
					t.Fatal(err)
				}
				res := toolResult{text: text, structured: true, failed: failed}
				if got := textResponse(idText(id), res, nil); !bytes.Equal(got, want) {
					t.Errorf("id %v, text %q, failed %v:\n got %s\nwant %s", raw, text, failed, got, want)
				}
			}
		}
	}
}

// TestErrorAndEmptyResponsesAreSDKs holds errorResponse and emptyResponse
// to what the SDK's encoder makes of the same id and error or empty
// result.
func TestErrorAndEmptyResponsesAreSDKs(t *testing.T) {
	errs := []*jsonrpc.Error{
		invalidParams("Unknown parameter '<a&b>\u2028' for tool mempalace_event_list"),
		readOnlyRefusal(toolEventAppend),
		{Code: codeToolFailure, Message: "Internal tool error", Data: json.RawMessage(`{"message": "disk <full> \u2028"}`)},
	}
	for _, raw := range []any{float64(0), float64(-7), float64(1 << 53), "", "req-1", "<&>é🙂\u2028 x"} {
		id, err := jsonrpc.MakeID(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, rpcErr := range errs {
			want, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: rpcErr})
			if err != nil {
				t.Fatal(err)
			}
			if got := errorResponse(idText(id), rpcErr); !bytes.Equal(got, want) {
				t.Errorf("id %v, error %q:\n got %s\nwant %s", raw, rpcErr.Message, got, want)
			}
		}
		want, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: json.RawMessage("{}")})
		if err != nil {
			t.Fatal(err)
		}
		if got := emptyResponse(idText(id)); !bytes.Equal(got, want) {
			t.Errorf("id %v, empty result:\n got %s\nwant %s", raw, got, want)
		}
	}
}

// FuzzStructuredOf holds structuredOf to encoding/json: the structured
// content of any value pyjson writes is byte for byte what encoding/json
// makes of the same text as a json.RawMessage (the SDK path's bytes).
func FuzzStructuredOf(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `{"a": [1, 2.5e300, null, true, false, {"b": "c"}]}`, `"<a> & \u2028 \u2029 \" \\ \n"`,
		`{"k": "é 🙂 \u0000 \u001f \u007f"}`, `-0.0`, `{"x": {"y": {"z": []}}, "w": [[[]]]}`,
	} {
		f.Add([]byte(seed))
	}
	for _, s := range jsonStringCases {
		data, _ := json.Marshal(s) // a string always encodes
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		text, err := pyjson.DumpsIndent(json.RawMessage(raw))
		if err != nil {
			return // a value Python cannot write (NaN, a number beyond float)
		}
		want, err := json.Marshal(json.RawMessage(text))
		if err != nil {
			t.Fatalf("pyjson wrote invalid JSON %q: %v", text, err)
		}
		if got := structuredOf(text); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", text, got, want)
		}
	})
}
