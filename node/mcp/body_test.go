package mcp

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/internal/nodetest"
)

// TestMCPLargeBody: a request body of exactly 16 MiB, the hub's limit, is
// handled (the SDK's own default is 4 MiB); one byte more is refused with
// the hub's 413 answer.
func TestMCPLargeBody(t *testing.T) {
	h := newMCPHarness(t, Options{})
	const limit = 16 << 20
	content := strings.Repeat("x", 1<<20)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_artifact_put","arguments":` +
		`{"kind":"log","created_by":"a","content":"` + content + `"}}}`
	body := call + strings.Repeat(" ", limit-len(call))

	status, _, out := h.post(body)
	var r nodetest.RPCReply
	if err := json.Unmarshal(out, &r); status != http.StatusOK || err != nil {
		t.Fatalf("16 MiB body: %d %.200s", status, out)
	}
	if p := r.Payload(t); p["success"] != true || p["artifact"].(map[string]any)["size_bytes"] != json.Number("1048576") {
		t.Fatalf("16 MiB body: %.300v", p)
	}

	status, _, out = h.post(body + " ")
	if want := `{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Request too large"}}`; status != http.StatusRequestEntityTooLarge || string(out) != want {
		t.Fatalf("16 MiB + 1: %d %s", status, out)
	}
}
