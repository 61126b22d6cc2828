//go:build e2e

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"go.yaml.in/yaml/v3"
)

// The Docker variant of the partition fault: deploy/compose.yaml's
// three nodes, under a compose project and host ports of their own (so it
// never meets TestDockerCluster), cut apart with `docker network
// disconnect` and joined again with `docker network connect`, twice: the
// last node, then the seed node1. Both sides write while apart (the cut-off
// container through the CLI inside it, since its published port goes with
// its network); after the reconnect the fault checker must find every
// write once on every node, equal version vectors, equal owed sets, an
// empty quarantine and every member alive with lag 0.
const (
	dpProject      = "lsnode-e2e-partition"
	dpConverge     = 180 * time.Second // the compose nodes rejoin every 30 s
	dpMembersAlive = 90 * time.Second
)

// dpPorts are the host ports of node1..3 here (compose.yaml's are 18765..).
var dpPorts = []int{28765, 28766, 28767}

func TestDockerPartition(t *testing.T) {
	dkRequireEngine(t)
	root := dkRepoRoot(t)
	bin := dkBinary(t, root)
	dkBuildImage(t, root, bin)
	dkRequireServe(t, bin)

	c := dpUp(t, root, dpComposeFile(t, root))
	token := dkReadToken(t, root)
	var targets []checkTarget
	for i, p := range dpPorts {
		url := fmt.Sprintf("http://127.0.0.1:%d", p)
		targets = append(targets, checkTarget{Name: fmt.Sprintf("node%d", i+1), URL: url, Token: token,
			CLI: cliRunner(bin, url, token)})
		dkWaitHealthy(t, url, 90*time.Second)
	}
	if took, diff := waitConverged(targets, dpMembersAlive); diff != "" {
		t.Fatalf("compose cluster did not form within %v: %s", dpMembersAlive, diff)
	} else {
		t.Logf("cluster formed in %v", took.Round(time.Millisecond))
	}

	w := &dpWriter{t: t, c: c, targets: targets, token: token}
	for i := range targets {
		w.viaHost(i)
	}
	for _, victim := range []int{2, 0} {
		w.partitionRound(victim)
	}

	rep := checkCluster(targets, w.records, dpConverge)
	t.Logf("docker partition: %d appends acknowledged, %d events on every node, %d owed sets compared, lost %d, duplicated %d, problems %d",
		rep.Acked, rep.Events, rep.OwedSets, rep.Lost, rep.Dup, len(rep.Problems))
	for _, p := range rep.Problems {
		t.Errorf("check: %s", p)
	}
}

// dpWriter appends and remembers what it was told.
type dpWriter struct {
	t       *testing.T
	c       dpCompose
	targets []checkTarget
	token   string
	records []*appendRecord
	n       int
}

// next makes the next request record: a task for agent-0, or (every third)
// an ack by agent-0 of an earlier acknowledged task, by correlation id.
func (w *dpWriter) next(node int) (*appendRecord, map[string]any) {
	w.n++
	rec := &appendRecord{Kind: clientPlain, Node: node, Token: fmt.Sprintf("dp-%d", w.n)}
	args := map[string]any{"stream": "e2e/partition", "room": "fault", "body": "fault-req " + rec.Token}
	var task *appendRecord
	for _, r := range w.records {
		if r.AckOf == "" && r.ToAgent == "agent-0" && !slices.ContainsFunc(w.records, func(x *appendRecord) bool { return x.AckOf == r.ID }) {
			task = r
			break
		}
	}
	if w.n%3 == 0 && task != nil {
		rec.FromAgent, rec.ToAgent, rec.AckOf = "agent-0", task.FromAgent, task.ID
		rec.AckCorr, rec.AckNode = "corr-"+task.Token, task.Node
		args["type"], args["status"], args["correlation_id"] = "task.result", "applied", "corr-"+task.Token
	} else {
		rec.FromAgent, rec.ToAgent = "dp-writer", "agent-0"
		args["type"], args["status"], args["correlation_id"] = "task.request", "open", "corr-"+rec.Token
	}
	args["from_agent"], args["to_agent"] = rec.FromAgent, rec.ToAgent
	return rec, args
}

// viaHost appends through node i's published port.
func (w *dpWriter) viaHost(i int) {
	w.t.Helper()
	rec, args := w.next(i)
	res := mcpAppend(&http.Client{Timeout: 30 * time.Second}, w.targets[i].URL, w.token, args)
	w.settle(rec, res)
}

// viaExec appends with the CLI inside node i's container, which works
// while the container has no network at all.
func (w *dpWriter) viaExec(i int) {
	w.t.Helper()
	rec, args := w.next(i)
	cli := []string{"exec", w.c.container(w.t, i), "/lsnode", "events", "append", "--json",
		"--addr", "http://127.0.0.1:8765", "--token-file", "/run/secrets/lsnode_token",
		"--type", args["type"].(string), "--stream", "e2e/partition", "--room", "fault",
		"--from", rec.FromAgent, "--to", rec.ToAgent, "--body", args["body"].(string),
		"--status", args["status"].(string), "--correlation-id", args["correlation_id"].(string)}
	out, err := dkCommand(w.t, time.Minute, "", nil, "docker", cli...)
	if err != nil {
		w.t.Fatalf("append inside node%d: %v\n%s", i+1, err, out)
	}
	w.settle(rec, classifyAnswer([]byte(out)))
}

func (w *dpWriter) settle(rec *appendRecord, res attemptResult) {
	w.t.Helper()
	rec.Attempts = 1
	if res.out != outAcked {
		w.t.Fatalf("append %s through node%d: %s: %s", rec.Token, rec.Node+1, res.out, res.detail)
	}
	rec.Outcome, rec.ID, rec.Origin, rec.OriginSeq, rec.IDs = outAcked, res.id, res.origin, res.originSeq, []string{res.id}
	w.records = append(w.records, rec)
}

// partitionRound cuts node victim off the compose network, writes on both
// sides, reconnects it and waits for convergence.
func (w *dpWriter) partitionRound(victim int) {
	t := w.t
	t.Helper()
	name := w.targets[victim].Name
	network := w.c.network(t)
	cid := w.c.container(t, victim)
	start := time.Now()
	if out, err := dkCommand(t, time.Minute, "", nil, "docker", "network", "disconnect", network, cid); err != nil {
		t.Fatalf("docker network disconnect %s %s: %v\n%s", network, name, err, out)
	}
	t.Logf("%s disconnected from %s", name, network)
	reconnected := false
	reconnect := func() {
		if reconnected {
			return
		}
		reconnected = true
		if out, err := dkCommand(t, time.Minute, "", nil, "docker", "network", "connect", "--alias", name, network, cid); err != nil {
			t.Fatalf("docker network connect %s %s: %v\n%s", network, name, err, out)
		}
	}
	defer reconnect()

	// The survivors see the victim leave the membership.
	survivor := (victim + 1) % len(w.targets)
	ok, last := testwait.Poll(60*time.Second, func() (bool, string) {
		m, err := faultMembers(w.targets[survivor].URL, w.token)
		if err != nil {
			return false, err.Error()
		}
		return m[name].State != "alive", m[name].State
	})
	if !ok {
		t.Fatalf("%s still sees %s %q 60 s after the disconnect", w.targets[survivor].Name, name, last)
	}
	t.Logf("%s sees %s %s after %v", w.targets[survivor].Name, name, last, time.Since(start).Round(time.Millisecond))

	// Both sides write while apart.
	for k := 0; k < 4; k++ {
		for i := range w.targets {
			if i == victim {
				w.viaExec(i)
			} else {
				w.viaHost(i)
			}
		}
	}
	reconnect()
	healed := time.Now()
	took, diff := waitConverged(w.targets, dpConverge)
	if diff != "" {
		t.Fatalf("not converged %v after reconnecting %s: %s", dpConverge, name, diff)
	}
	t.Logf("%s reconnected; every node holds the same log with every member alive and lag 0 after %.1f s (cut for %.1f s)",
		name, took.Seconds(), healed.Sub(start).Seconds())
}

// dpComposeFile writes compose.yaml without Prometheus, with this test's
// host ports and with absolute paths to the env file, the bind-mounted
// files and the secrets.
func dpComposeFile(t *testing.T, root string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "deploy", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("deploy/compose.yaml: %v", err)
	}
	deploy := filepath.Join(root, "deploy")
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(deploy, p)
	}
	services, _ := doc["services"].(map[string]any)
	delete(services, "prometheus")
	delete(doc, "x-lsnode")
	if vols, ok := doc["volumes"].(map[string]any); ok {
		delete(vols, "prometheus-data")
	}
	for i, p := range dpPorts {
		svc, ok := services[fmt.Sprintf("node%d", i+1)].(map[string]any)
		if !ok {
			t.Fatalf("deploy/compose.yaml has no service node%d", i+1)
		}
		svc["ports"] = []any{fmt.Sprintf("127.0.0.1:%d:8765", p)}
		if vols, ok := svc["volumes"].([]any); ok {
			for j, v := range vols {
				if src, rest, ok := strings.Cut(fmt.Sprint(v), ":"); ok && strings.HasPrefix(src, "./") {
					vols[j] = abs(src) + ":" + rest
				}
			}
		}
		switch ef := svc["env_file"].(type) {
		case string:
			svc["env_file"] = abs(ef)
		case []any:
			for j, v := range ef {
				ef[j] = abs(fmt.Sprint(v))
			}
		}
	}
	secrets, _ := doc["secrets"].(map[string]any)
	for _, s := range secrets {
		if m, ok := s.(map[string]any); ok {
			if f, ok := m["file"].(string); ok {
				m["file"] = abs(f)
			}
		}
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "compose.yaml")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// dpCompose runs compose on the generated file under dpProject.
type dpCompose struct {
	file string
	cmd  []string
}

func (c dpCompose) try(t *testing.T, args ...string) (string, error) {
	t.Helper()
	full := append(slices.Clone(c.cmd[1:]), "-p", dpProject, "-f", c.file)
	return dkCommand(t, 5*time.Minute, filepath.Dir(c.file), []string{"LSNODE_IMAGE=" + dkImage}, c.cmd[0], append(full, args...)...)
}

func (c dpCompose) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := c.try(t, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", strings.Join(c.cmd, " "), strings.Join(args, " "), err, out)
	}
	return out
}

// container is the id of node i's container.
func (c dpCompose) container(t *testing.T, i int) string {
	t.Helper()
	id := strings.TrimSpace(c.run(t, "ps", "-q", fmt.Sprintf("node%d", i+1)))
	if id == "" || strings.ContainsAny(id, " \n") {
		t.Fatalf("compose ps -q node%d: %q", i+1, id)
	}
	return id
}

// network is the name of the project's lsnode network.
func (c dpCompose) network(t *testing.T) string {
	t.Helper()
	out, err := dkCommand(t, 30*time.Second, "", nil, "docker", "network", "ls", "--format", "{{.Name}}",
		"--filter", "label=com.docker.compose.project="+dpProject)
	if err != nil {
		t.Fatalf("docker network ls: %v\n%s", err, out)
	}
	for _, n := range strings.Fields(out) {
		if strings.HasSuffix(n, "_lsnode") {
			return n
		}
	}
	t.Fatalf("no lsnode network of project %s: %q", dpProject, out)
	return ""
}

// dpUp starts node1..3 from scratch and registers their removal.
func dpUp(t *testing.T, root, file string) dpCompose {
	t.Helper()
	c := dpCompose{file: file, cmd: []string{"docker-compose"}}
	if _, err := dkCommand(t, 30*time.Second, "", nil, "docker", "compose", "version"); err == nil {
		c.cmd = []string{"docker", "compose"}
	}
	_, _ = c.try(t, "down", "-v", "--remove-orphans") // a run killed before its cleanup
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := c.try(t, "logs", "--no-color", "--tail", "150")
			t.Logf("compose logs:\n%s", out)
		}
		if out, err := c.try(t, "down", "-v", "--remove-orphans"); err != nil {
			t.Errorf("compose down: %v\n%s", err, out)
		}
	})
	c.run(t, "up", "-d", "node1", "node2", "node3")
	return c
}
