package mcp

import (
	"io"
	"net/http"
	"testing"
)

// TestMCPMethodsOtherThanPOST: the server has no GET stream and no
// sessions, so GET and DELETE get 405 with Allow: POST and a JSON-RPC
// error, as the streamable HTTP transport asks.
func TestMCPMethodsOtherThanPOST(t *testing.T) {
	h := newMCPHarness(t, Options{})
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		req, err := http.NewRequest(method, h.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", "abc")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Method Not Allowed: ` + method +
			` /mcp; this server takes POST only (no GET stream, no sessions)"}}`
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" ||
			resp.Header.Get("Content-Type") != "application/json" || string(body) != want {
			t.Fatalf("%s: %d Allow=%q %q %s", method, resp.StatusCode, resp.Header.Get("Allow"), resp.Header.Get("Content-Type"), body)
		}
	}
}
