package nodetest

import (
	"encoding/json"
	"strings"
	"testing"
)

// ToolsList is a tools/list request with id 1.
const ToolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// RPCReply is one JSON-RPC response.
type RPCReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// Text returns the one text content of a tool result.
func (r RPCReply) Text(t testing.TB) string {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError *bool `json:"isError"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("decode result %s: %v", r.Result, err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		t.Fatalf("want one text content, got %s", r.Result)
	}
	if failed := failurePayload(res.Content[0].Text); (res.IsError != nil && !*res.IsError) || failed != (res.IsError != nil) {
		t.Fatalf("isError must be set exactly on a failure's payload, got %s", r.Result)
	}
	return res.Content[0].Text
}

// failurePayload reports whether a tool's text is a refusal: an object
// with an "error" member ({"error": ...} or {"success": false, ...}).
func failurePayload(text string) bool {
	var p map[string]json.RawMessage
	return json.Unmarshal([]byte(text), &p) == nil && (p["error"] != nil || string(p["success"]) == "false")
}

// Payload decodes the tool result's JSON text.
func (r RPCReply) Payload(t testing.TB) map[string]any {
	t.Helper()
	var p map[string]any
	dec := json.NewDecoder(strings.NewReader(r.Text(t)))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("decode payload: %v", err)
	}
	return p
}

// Keys returns the top-level keys of the tool result's JSON text in order.
func (r RPCReply) Keys(t testing.TB) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.Text(t)))
	if _, err := dec.Token(); err != nil {
		t.Fatalf("payload: %v", err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("payload: %v", err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("payload: %v", err)
		}
	}
	return keys
}

// DecodeRPC decodes one JSON-RPC response.
func DecodeRPC(t testing.TB, body []byte) RPCReply {
	t.Helper()
	var r RPCReply
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return r
}
