//go:build e2e

package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/mcpdrive"
)

// TestMCPClients drives a running node's POST /mcp, token and all, with
// real MCP clients through every tool, every resource and every failure
// path (internal/mcpdrive): the go-sdk client negotiating 2026-07-28 and
// pinned to 2025-11-25, mark3labs/mcp-go with continuous listening, and
// the hub-shaped bare JSON-RPC client.
func TestMCPClients(t *testing.T) {
	const token = "e2e-mcp-token"
	p := startLsnode(t, nodeOptions{Token: token})
	url := p.URL + "/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bare := mcpdrive.NewRaw(url, token, "")
	defer bare.Close()
	for _, tc := range []struct {
		version string
		connect func(log *mcpdrive.LogBuffer) (mcpdrive.Client, error)
	}{
		{"2026-07-28", func(*mcpdrive.LogBuffer) (mcpdrive.Client, error) {
			return mcpdrive.NewGoSDK(ctx, url, token, "2026-07-28")
		}},
		{"2025-11-25", func(*mcpdrive.LogBuffer) (mcpdrive.Client, error) {
			return mcpdrive.NewGoSDK(ctx, url, token, "2025-11-25")
		}},
		{"2025-11-25", func(log *mcpdrive.LogBuffer) (mcpdrive.Client, error) { return mcpdrive.NewMark3(ctx, url, token, log) }},
		{"", func(*mcpdrive.LogBuffer) (mcpdrive.Client, error) { return mcpdrive.NewRaw(url, token, ""), nil }},
	} {
		var log mcpdrive.LogBuffer
		c, err := tc.connect(&log)
		if err != nil {
			t.Fatalf("%v\n%s", err, p.Logs())
		}
		t.Run(c.Name(), func(t *testing.T) {
			mcpdrive.Drive(ctx, t, c, bare, tc.version)
			mcpdrive.CheckListener(t, c, &log)
		})
		c.Close()
	}
}

// TestMCPHTTPRefusals: on a running node, /mcp without a token is the
// hub's 401 with a bearer challenge and a JSON-RPC error, and GET and
// DELETE are 405 with Allow: POST (after the token check).
func TestMCPHTTPRefusals(t *testing.T) {
	const token = "e2e-mcp-token"
	p := startLsnode(t, nodeOptions{Token: token})
	do := func(method, auth string) (*http.Response, string) {
		req, err := http.NewRequest(method, p.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	for _, auth := range []string{"", "Bearer nope"} {
		resp, body := do(http.MethodPost, auth)
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer realm="lsnode"` ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(body, `"code": -32001`) {
			t.Fatalf("POST with %q: %d %v %s", auth, resp.StatusCode, resp.Header, body)
		}
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		resp, body := do(method, "Bearer "+token)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" || !strings.Contains(body, "Method Not Allowed") {
			t.Fatalf("%s: %d %v %s", method, resp.StatusCode, resp.Header, body)
		}
	}
}
