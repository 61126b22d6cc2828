//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"go.yaml.in/yaml/v3"
)

// The Docker tier: deploy/compose.yaml's three nodes and Prometheus, run
// from images built here (nothing can be pulled). The host ports are the
// ones compose.yaml publishes.
const (
	dkProject    = "lsnode-e2e"
	dkImage      = "lsnode:e2e"
	dkPromImage  = "lsnode-prometheus:e2e"
	dkPrometheus = "http://127.0.0.1:19090"
	dkTokenFile  = "deploy/compose/token"
	dkRulesFile  = "deploy/prometheus/rules.yml"
)

// dkNodes are the compose services and their published HTTP ports.
var dkNodes = []struct{ name, url string }{
	{"node1", "http://127.0.0.1:18765"},
	{"node2", "http://127.0.0.1:18766"},
	{"node3", "http://127.0.0.1:18767"},
}

// dkServeFlags are the serve settings compose.yaml passes, on the command
// line and in compose/lsnode.yaml; a binary lacking one cannot run the
// cluster.
var dkServeFlags = []string{"config", "data", "http", "grpc", "gossip", "cluster-id", "name", "join", "token-file", "gossip-key-file"}

// TestDockerCluster builds the lsnode and Prometheus images, starts the
// compose cluster, and checks replication between containers, the
// Prometheus scrape with the bearer token, the peer-down alert expression
// when a node is killed, and the node's catch-up when it comes back.
func TestDockerCluster(t *testing.T) {
	dkRequireEngine(t)
	root := dkRepoRoot(t)
	bin := dkBinary(t, root)

	dkBuildImage(t, root, bin)
	dkBuildPrometheusImage(t, root)
	dkRequireServe(t, bin)

	c := dkUp(t, root)
	token := dkReadToken(t, root)
	for _, n := range dkNodes {
		dkWaitHealthy(t, n.url, 90*time.Second)
	}

	// A write through node1 reaches node2 and node3.
	first := dkAppend(t, dkNodes[0].url, token, "first")
	for _, n := range dkNodes[1:] {
		dkWaitEvent(t, n.url, token, first, 60*time.Second)
	}

	// Prometheus scrapes all three with the token and sees their lag.
	dkWaitQuery(t, "every node up", `up{job="lsnode"} == 1`, 60*time.Second, dkHasNodes("node1", "node2", "node3"))
	dkWaitQuery(t, "lag metric of every node", `lsnode_sync_peer_lag_ops`, 60*time.Second, dkHasNodes("node1", "node2", "node3"))

	// node3 crashes: its target goes down and the others see it dead.
	peerDown := dkAlertExpr(t, root, "LsnodePeerDown")
	c.run(t, "kill", "node3")
	dkWaitQuery(t, "node3 target down", `up{job="lsnode", node="node3"} == 0`, 60*time.Second, dkHasNodes("node3"))
	dkWaitQuery(t, "LsnodePeerDown on node1 and node2", peerDown, 90*time.Second, dkHasNodes("node1", "node2"))

	// A write while node3 is down; node3 catches up once it is back.
	second := dkAppend(t, dkNodes[0].url, token, "while node3 was down")
	c.run(t, "start", "node3")
	dkWaitHealthy(t, dkNodes[2].url, 90*time.Second)
	dkWaitEvent(t, dkNodes[2].url, token, second, 90*time.Second)
	dkWaitEvent(t, dkNodes[2].url, token, first, 10*time.Second)
	dkWaitQuery(t, "LsnodePeerDown clears", peerDown, 120*time.Second, dkEmpty)
}

// dkRequireEngine skips the test, loudly, when no Docker engine answers.
// Only then: a broken image or compose file fails the test.
func dkRequireEngine(t *testing.T) {
	t.Helper()
	out, err := dkCommand(t, 30*time.Second, "", nil, "docker", "version", "--format", "{{.Server.Version}}")
	if err != nil {
		msg := fmt.Sprintf("DOCKER TIER SKIPPED: no Docker engine responds (docker version: %v: %s); "+
			"deploy/Dockerfile, deploy/compose.yaml and the Prometheus image were NOT tested", err, strings.TrimSpace(out))
		fmt.Fprintln(os.Stderr, "\n*** "+msg+" ***")
		t.Skip(msg)
	}
	t.Logf("Docker engine %s", strings.TrimSpace(out))
}

// dkRequireServe skips the cluster part, loudly, while bin's serve command
// is missing or lacks a flag that compose.yaml passes (the node wiring is
// landing piece by piece); the images were built and checked by then.
func dkRequireServe(t *testing.T, bin string) {
	t.Helper()
	out, _ := dkCommand(t, 30*time.Second, "", nil, bin, "serve", "-h")
	var missing []string
	for _, f := range dkServeFlags {
		if !strings.Contains(out, "-"+f+" ") && !strings.Contains(out, "-"+f+"\n") && !strings.Contains(out, "-"+f+"=") {
			missing = append(missing, "--"+f)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("DOCKER CLUSTER SKIPPED: %s serve lacks %s (serve -h said: %.200q); "+
		"the images were built and checked, the compose cluster was NOT run", bin, strings.Join(missing, " "), out)
	fmt.Fprintln(os.Stderr, "\n*** "+msg+" ***")
	t.Skip(msg)
}

func dkRepoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "deploy", "compose.yaml")); err != nil {
		t.Fatalf("repository root %s: %v", root, err)
	}
	return root
}

// dkBinary returns LSNODE_BIN (make e2e sets it) or bin/lsnode, and checks
// that it is static: the image is FROM scratch, with no loader or libc.
func dkBinary(t *testing.T, root string) string {
	t.Helper()
	bin := os.Getenv("LSNODE_BIN")
	if bin == "" {
		bin = filepath.Join(root, "bin", "lsnode")
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("lsnode binary (LSNODE_BIN or bin/lsnode; make build): %v", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatalf("%s is dynamically linked; the image needs a static binary (make build sets CGO_ENABLED=0)", bin)
		}
	}
	return bin
}

// dkBuildImage builds deploy/Dockerfile as dkImage from a context holding
// only what it copies, with bin at bin/lsnode, and checks the image's
// user, entry point and ports.
func dkBuildImage(t *testing.T, root, bin string) {
	t.Helper()
	ctx := t.TempDir()
	dkCopyFile(t, bin, filepath.Join(ctx, "bin", "lsnode"), 0o755)
	dkCopyFile(t, filepath.Join(root, "deploy", "Dockerfile"), filepath.Join(ctx, "deploy", "Dockerfile"), 0o644)
	rootfs := filepath.Join(root, "deploy", "docker", "rootfs")
	err := filepath.WalkDir(rootfs, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dkCopyFile(t, path, filepath.Join(ctx, rel), 0o644)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if out, err := dkCommand(t, 5*time.Minute, ctx, nil, "docker", "build", "-q", "-f", "deploy/Dockerfile", "-t", dkImage, "."); err != nil {
		t.Fatalf("docker build deploy/Dockerfile: %v\n%s", err, out)
	}
	out, err := dkCommand(t, 30*time.Second, "", nil, "docker", "image", "inspect", "--format", "{{json .Config}} {{.Size}}", dkImage)
	if err != nil {
		t.Fatalf("docker image inspect: %v\n%s", err, out)
	}
	cfgJSON, size, _ := strings.Cut(strings.TrimSpace(out), " ")
	var cfg struct {
		User         string
		Entrypoint   []string
		ExposedPorts map[string]struct{}
		Volumes      map[string]struct{}
		Healthcheck  any
	}
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		t.Fatalf("image config %s: %v", cfgJSON, err)
	}
	if cfg.User != "65532:65532" {
		t.Errorf("image user %q, want 65532:65532", cfg.User)
	}
	if !slices.Equal(cfg.Entrypoint, []string{"/lsnode", "serve"}) {
		t.Errorf("image entrypoint %q", cfg.Entrypoint)
	}
	for _, p := range []string{"8765/tcp", "8766/tcp", "7946/tcp", "7946/udp"} {
		if _, ok := cfg.ExposedPorts[p]; !ok {
			t.Errorf("image does not expose %s", p)
		}
	}
	if _, ok := cfg.Volumes["/data"]; !ok {
		t.Errorf("image has no /data volume: %v", cfg.Volumes)
	}
	t.Logf("built %s (%s bytes) in %v", dkImage, size, time.Since(start).Round(time.Millisecond))
}

// dkBuildPrometheusImage runs scripts/docker-prometheus-image.sh, which
// needs Debian's prometheus package (scripts/tools.sh installs it).
func dkBuildPrometheusImage(t *testing.T, root string) {
	t.Helper()
	start := time.Now()
	out, err := dkCommand(t, 10*time.Minute, root, nil, "scripts/docker-prometheus-image.sh", dkPromImage)
	if err != nil {
		t.Fatalf("scripts/docker-prometheus-image.sh: %v\n%s", err, out)
	}
	t.Logf("built %s in %v", dkPromImage, time.Since(start).Round(time.Millisecond))
}

// dkCompose runs docker compose (the v2 plugin, or docker-compose 1.x) on
// deploy/compose.yaml under the project dkProject.
type dkCompose struct {
	root string
	cmd  []string
}

func (c dkCompose) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := c.try(t, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", strings.Join(c.cmd, " "), strings.Join(args, " "), err, out)
	}
	return out
}

func (c dkCompose) try(t *testing.T, args ...string) (string, error) {
	t.Helper()
	full := append(slices.Clone(c.cmd[1:]), "-p", dkProject, "-f", "deploy/compose.yaml")
	env := []string{"LSNODE_IMAGE=" + dkImage, "LSNODE_PROMETHEUS_IMAGE=" + dkPromImage}
	return dkCommand(t, 5*time.Minute, c.root, env, c.cmd[0], append(full, args...)...)
}

// dkUp starts the cluster from scratch and registers its removal, volumes
// included; a failed test first gets the containers' logs.
func dkUp(t *testing.T, root string) dkCompose {
	t.Helper()
	c := dkCompose{root: root, cmd: []string{"docker-compose"}}
	if _, err := dkCommand(t, 30*time.Second, "", nil, "docker", "compose", "version"); err == nil {
		c.cmd = []string{"docker", "compose"}
	}
	c.run(t, "down", "-v", "--remove-orphans") // a run killed before its cleanup
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := c.try(t, "logs", "--no-color", "--tail", "150")
			t.Logf("compose logs:\n%s", out)
		}
		if out, err := c.try(t, "down", "-v", "--remove-orphans"); err != nil {
			t.Errorf("compose down: %v\n%s", err, out)
		}
	})
	c.run(t, "up", "-d")
	return c
}

func dkReadToken(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, dkTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// dkAlertExpr returns the expression of alert name in the rules file, so
// the test queries what Prometheus evaluates.
func dkAlertExpr(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, dkRulesFile))
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &rules); err != nil {
		t.Fatalf("%s: %v", dkRulesFile, err)
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == name {
				return r.Expr
			}
		}
	}
	t.Fatalf("%s has no alert %s", dkRulesFile, name)
	return ""
}

// dkWaitHealthy polls GET /healthz until it answers 200.
func dkWaitHealthy(t *testing.T, base string, within time.Duration) {
	t.Helper()
	testwait.For(t, within, func() (bool, string) {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false, base + " /healthz: " + err.Error()
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, fmt.Sprintf("%s /healthz: %d %s", base, resp.StatusCode, body)
	})
}

// dkAppend appends one event through base with a bare tools/call and
// returns its id.
func dkAppend(t *testing.T, base, token, body string) string {
	t.Helper()
	args := map[string]any{
		"type": "task.request", "stream": "e2e/docker", "room": "cluster",
		"from_agent": "docker-e2e", "to_agent": "*", "body": body,
	}
	var res struct {
		Success bool           `json:"success"`
		Error   string         `json:"error"`
		Event   map[string]any `json:"event"`
	}
	dkToolCall(t, base, token, "mempalace_event_append", args, &res)
	id, _ := res.Event["id"].(string)
	if !res.Success || id == "" {
		t.Fatalf("event_append through %s: success=%v error=%q event=%v", base, res.Success, res.Error, res.Event)
	}
	return id
}

// dkWaitEvent polls mempalace_event_list on base until it holds event id.
func dkWaitEvent(t *testing.T, base, token, id string, within time.Duration) {
	t.Helper()
	testwait.For(t, within, func() (bool, string) {
		var res struct {
			Events []map[string]any `json:"events"`
			Error  string           `json:"error"`
		}
		if err := dkTryToolCall(base, token, "mempalace_event_list",
			map[string]any{"stream": "e2e/docker", "limit": 500}, &res); err != nil {
			return false, fmt.Sprintf("event %s on %s: %v", id, base, err)
		}
		ids := make([]string, 0, len(res.Events))
		for _, e := range res.Events {
			s, _ := e["id"].(string)
			ids = append(ids, s)
		}
		return slices.Contains(ids, id), fmt.Sprintf("event %s on %s: error=%q ids=%v", id, base, res.Error, ids)
	})
}

func dkToolCall(t *testing.T, base, token, tool string, args map[string]any, out any) {
	t.Helper()
	if err := dkTryToolCall(base, token, tool, args, out); err != nil {
		t.Fatal(err)
	}
}

// dkTryToolCall POSTs a bare JSON-RPC tools/call to base/mcp, as the
// Python hub's clients do (no initialize, Accept: application/json), and
// decodes the JSON text of the tool result into out.
func dkTryToolCall(base, token, tool string, args map[string]any, out any) error {
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args},
	})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", tool, base, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s on %s: %w", tool, base, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s on %s: HTTP %d: %s", tool, base, resp.StatusCode, raw)
	}
	var rpc struct {
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &rpc); err != nil {
		return fmt.Errorf("%s on %s: decode %s: %w", tool, base, raw, err)
	}
	switch {
	case rpc.Error != nil:
		return fmt.Errorf("%s on %s: JSON-RPC error %d: %s", tool, base, rpc.Error.Code, rpc.Error.Message)
	case rpc.Result == nil || len(rpc.Result.Content) != 1 || rpc.Result.IsError:
		return fmt.Errorf("%s on %s: want one text content and no isError: %s", tool, base, raw)
	}
	if err := json.Unmarshal([]byte(rpc.Result.Content[0].Text), out); err != nil {
		return fmt.Errorf("%s on %s: decode tool result %q: %w", tool, base, rpc.Result.Content[0].Text, err)
	}
	return nil
}

// dkSample is one series of an instant query's result.
type dkSample struct {
	Metric map[string]string `json:"metric"`
	Value  []any             `json:"value"`
}

// dkQuery runs an instant query against the compose Prometheus.
func dkQuery(query string) ([]dkSample, error) {
	resp, err := http.Get(dkPrometheus + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string     `json:"resultType"`
			Result     []dkSample `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	if r.Status != "success" {
		return nil, errors.New(r.Error)
	}
	return r.Data.Result, nil
}

// dkWaitQuery polls query until ok accepts its result.
func dkWaitQuery(t *testing.T, what, query string, within time.Duration, ok func([]dkSample) bool) {
	t.Helper()
	var last string
	testwait.For(t, within, func() (bool, string) {
		res, err := dkQuery(query)
		if err != nil {
			return false, fmt.Sprintf("%s (%s): %v", what, query, err)
		}
		b, _ := json.Marshal(res)
		last = string(b)
		return ok(res), fmt.Sprintf("%s (%s): %s", what, query, last)
	})
	t.Logf("prometheus: %s: %s", what, last)
}

// dkHasNodes accepts a result with a series for each of the given nodes
// (the node label the scrape config adds).
func dkHasNodes(nodes ...string) func([]dkSample) bool {
	return func(res []dkSample) bool {
		for _, n := range nodes {
			if !slices.ContainsFunc(res, func(s dkSample) bool { return s.Metric["node"] == n }) {
				return false
			}
		}
		return true
	}
}

func dkEmpty(res []dkSample) bool { return len(res) == 0 }

// dkCommand runs name with args in dir (the current one when ""), with
// extra environment variables, and returns its combined output.
func dkCommand(t *testing.T, timeout time.Duration, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func dkCopyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}
