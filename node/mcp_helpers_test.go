package node

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

	"github.com/lsnode/lsnode/store"
)

// mcpHarness serves NewMCPHandler over a real HTTP test server. Unless the
// options name a store, it opens a real one in a temp dir.
type mcpHarness struct {
	t     testing.TB
	url   string
	store *store.Store
	reg   *prometheus.Registry
}

func newMCPHarness(t testing.TB, opts MCPOptions) *mcpHarness {
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
	srv := httptest.NewServer(NewMCPHandler(opts))
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

// rpcReply is one JSON-RPC response.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (h *mcpHarness) rpc(method, params string) rpcReply {
	h.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q}`, method)
	if params != "" {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, params)
	}
	status, _, out := h.post(body)
	if status != http.StatusOK {
		h.t.Fatalf("%s: status %d: %s", method, status, out)
	}
	var r rpcReply
	if err := json.Unmarshal(out, &r); err != nil {
		h.t.Fatalf("%s: decode %s: %v", method, out, err)
	}
	return r
}

// call runs tools/call with raw JSON arguments.
func (h *mcpHarness) call(tool, args string) rpcReply {
	h.t.Helper()
	return h.rpc("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
}

// text returns the one text content of a tool result.
func (r rpcReply) text(t testing.TB) string {
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
	if len(res.Content) != 1 || res.Content[0].Type != "text" || res.IsError != nil {
		t.Fatalf("want one text content and no isError, got %s", r.Result)
	}
	return res.Content[0].Text
}

// payload decodes the tool result's JSON text.
func (r rpcReply) payload(t testing.TB) map[string]any {
	t.Helper()
	var p map[string]any
	dec := json.NewDecoder(strings.NewReader(r.text(t)))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("decode payload: %v", err)
	}
	return p
}

// keys returns the top-level keys of the tool result's JSON text in order.
func (r rpcReply) keys(t testing.TB) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.text(t)))
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

// appendEvent appends through the tool and returns the stored event.
func (h *mcpHarness) appendEvent(args string) map[string]any {
	h.t.Helper()
	p := h.call(toolEventAppend, args).payload(h.t)
	if p["success"] != true {
		h.t.Fatalf("append %s: %v", args, p)
	}
	return p["event"].(map[string]any)
}
