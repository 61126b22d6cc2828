package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// mcpHarness serves NewHandler over a real HTTP test server. Unless the
// options name a store, it opens a real one in a temp dir.
type mcpHarness struct {
	t     testing.TB
	url   string
	store *store.Store
	reg   *prometheus.Registry
}

func newMCPHarness(t testing.TB, opts Options) *mcpHarness {
	t.Helper()
	h := &mcpHarness{t: t, reg: prometheus.NewRegistry()}
	if opts.Store == nil {
		st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir()})
		if err != nil {
			t.Fatalf("open store: %v", err)
		}
		t.Cleanup(func() { st.Close() })
		h.store, opts.Store = st, st
	}
	opts.Metrics = h.reg
	srv := httptest.NewServer(NewHandler(opts))
	t.Cleanup(srv.Close)
	h.url = srv.URL
	return h
}

// post sends one body with the headers of a bare client.
func (h *mcpHarness) post(body string) (int, http.Header, []byte) {
	h.t.Helper()
	return h.postContext(context.Background(), body)
}

func (h *mcpHarness) postContext(ctx context.Context, body string) (int, http.Header, []byte) {
	h.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(body))
	if err != nil {
		h.t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer test-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("read response: %v", err)
	}
	return resp.StatusCode, resp.Header, out
}

func (h *mcpHarness) rpc(method, params string) nodetest.RPCReply {
	h.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q}`, method)
	if params != "" {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	}
	status, _, out := h.post(body)
	if status != http.StatusOK {
		h.t.Fatalf("%s: status %d: %s", method, status, out)
	}
	var r nodetest.RPCReply
	if err := json.Unmarshal(out, &r); err != nil {
		h.t.Fatalf("%s: decode %s: %v", method, out, err)
	}
	return r
}

// call runs tools/call with raw JSON arguments.
func (h *mcpHarness) call(tool, args string) nodetest.RPCReply {
	h.t.Helper()
	return h.rpc("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
}

// appendEvent appends through the tool and returns the stored event.
func (h *mcpHarness) appendEvent(args string) map[string]any {
	h.t.Helper()
	p := h.call(toolEventAppend, args).Payload(h.t)
	if p["success"] != true {
		h.t.Fatalf("append %s: %v", args, p)
	}
	return p["event"].(map[string]any)
}
