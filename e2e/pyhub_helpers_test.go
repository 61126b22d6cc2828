//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/sync/fakehub"
)

// phTool calls one MCP tool on a node the way simple Python clients do: a
// bare JSON-RPC tools/call POST (no initialize, Accept: application/json),
// and returns the decoded JSON text of the result.
func phTool(t *testing.T, p *lsnodeProc, token, name string, args map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest("POST", p.URL+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var rpc struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal(raw, &rpc); err != nil || rpc.Error != nil || len(rpc.Result.Content) == 0 {
		t.Fatalf("%s: %d %s (%v)", name, resp.StatusCode, raw, err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(rpc.Result.Content[0].Text), &out); err != nil {
		t.Fatalf("%s: result %q: %v", name, rpc.Result.Content[0].Text, err)
	}
	if s, ok := out["success"]; ok && s != true {
		t.Fatalf("%s: %s", name, rpc.Result.Content[0].Text)
	}
	return out
}

// phGet GETs a JSON route of a node or hub.
func phGet(t *testing.T, url, token string, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// phVector is a node's or hub's /sync/version_vector.
func phVector(t *testing.T, base, token string) map[string]int64 {
	t.Helper()
	var vv struct {
		VersionVector map[string]int64 `json:"version_vector"`
	}
	phGet(t, base+"/sync/version_vector", token, &vv)
	return vv.VersionVector
}

// phOps returns every event dict served for origin, in origin order,
// without the local seq.
func phOps(t *testing.T, base, token, origin string) []map[string]any {
	t.Helper()
	var out []map[string]any
	var after int64
	for {
		var page struct{ Events []map[string]any }
		phGet(t, fmt.Sprintf("%s/sync/ops?origin=%s&after=%d", base, origin, after), token, &page)
		if len(page.Events) == 0 {
			return out
		}
		for _, ev := range page.Events {
			after = int64(ev["origin_seq"].(float64))
			delete(ev, "seq")
			out = append(out, ev)
		}
	}
}

// phRequireServeFlags fails the test when the binary's serve command
// lacks a flag the mesh test needs.
func phRequireServeFlags(t *testing.T, flags ...string) {
	t.Helper()
	out, _ := exec.Command(lsnodeBin(t), "serve", "-h").CombinedOutput()
	for _, f := range flags {
		if !strings.Contains(string(out), "-"+f) {
			t.Fatalf("lsnode serve has no --%s flag", f)
		}
	}
}

// phPython returns python3's path, skipping the test without one.
func phPython(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	return py
}

// mixedMesh is two lsnode nodes replicating over gRPC, each pulling the
// fake Python hub at srv through its peers.json.
type mixedMesh struct {
	hub    *fakehub.Hub
	srv    *httptest.Server
	n1, n2 *lsnodeProc
}

// Tokens of the mixed-mesh tests: the nodes' bearer token and the hub's.
const meshNodeToken, meshHubToken = "mesh-node-token", "mesh-hub-token"

// startMixedMesh starts the hub (seeded) and the two nodes with cluster id
// cluster and the extra serve flags.
func startMixedMesh(t *testing.T, seed uint64, cluster string, extra ...string) mixedMesh {
	t.Helper()
	hub := fakehub.New(fakehub.Config{Token: meshHubToken, Seed: seed})
	srv := httptest.NewServer(hub.Handler())
	t.Cleanup(srv.Close)
	grpc1, grpc2 := freePort(t), freePort(t)
	start := func(grpcPort, peerPort int) *lsnodeProc {
		dir := t.TempDir()
		peers := fmt.Sprintf(`{"peers": [{"name": "pyhub", "url": %q, "token": %q}]}`, srv.URL, meshHubToken)
		if err := os.WriteFile(filepath.Join(dir, "peers.json"), []byte(peers), 0o600); err != nil {
			t.Fatal(err)
		}
		return startLsnode(t, nodeOptions{DataDir: dir, Token: meshNodeToken, Args: append([]string{
			"--grpc", "127.0.0.1:" + strconv.Itoa(grpcPort), "--peer", "127.0.0.1:" + strconv.Itoa(peerPort),
			"--cluster-id", cluster, "--http-sync-interval", "200ms",
		}, extra...)})
	}
	return mixedMesh{hub: hub, srv: srv, n1: start(grpc1, grpc2), n2: start(grpc2, grpc1)}
}
