//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// appendJSON appends an event through the CLI and returns its id.
func appendJSON(t *testing.T, p *lsnodeProc, extra ...string) string {
	t.Helper()
	args := append([]string{"events", "append", "--json", "--type=task.request", "--stream=project/e2e",
		"--room=delegation", "--from=alice"}, extra...)
	code, out, errOut := p.CLI(args...)
	if code != 0 {
		t.Fatalf("events append: exit %d\n%s%s", code, out, errOut)
	}
	var res struct {
		Success bool
		Event   struct{ ID string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Success {
		t.Fatalf("events append --json: %v\n%s", err, out)
	}
	return res.Event.ID
}

func mustRun(t *testing.T, p *lsnodeProc, args ...string) string {
	t.Helper()
	code, out, errOut := p.CLI(args...)
	if code != 0 {
		t.Fatalf("lsnode %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func TestSurface_CLIAgainstServe(t *testing.T) {
	p := startLsnode(t, nodeOptions{Token: "e2e-token"})
	id := appendJSON(t, p, "--to=bob", "--body=review the patch")

	if out := mustRun(t, p, "events", "list", "--stream=project/e2e"); !strings.Contains(out, id) || !strings.HasPrefix(out, "SEQ") {
		t.Fatalf("events list:\n%s", out)
	}
	if out := mustRun(t, p, "owed", "--agent=bob"); !strings.Contains(out, id) {
		t.Fatalf("owed before the ack:\n%s", out)
	}
	mustRun(t, p, "events", "ack", "--event="+id, "--from=bob", "--status=applied")
	if out := mustRun(t, p, "owed", "--agent=bob", "--json"); strings.Contains(out, id) {
		t.Fatalf("owed after the ack:\n%s", out)
	}

	src := filepath.Join(t.TempDir(), "x.diff")
	content := "diff --git a/x b/x\n+ü\n"
	os.WriteFile(src, []byte(content), 0o644)
	out := mustRun(t, p, "artifact", "put", "--kind=patch", "--created-by=alice", "--file="+src)
	m := regexp.MustCompile(`(?m)^id +(art_\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("artifact put:\n%s", out)
	}
	if got := mustRun(t, p, "artifact", "get", m[1]); got != content {
		t.Fatalf("artifact get = %q, want %q", got, content)
	}

	out = mustRun(t, p, "status")
	if !regexp.MustCompile(`(?m)^events +2$`).MatchString(out) || !regexp.MustCompile(`(?m)^artifacts +1$`).MatchString(out) {
		t.Fatalf("status:\n%s", out)
	}

	// Without the token every client command fails with a clear 401.
	code, _, errOut := runCLI(t, nil, "status", "--addr", p.URL)
	if code != 1 || !strings.Contains(errOut, "401 Unauthorized") {
		t.Fatalf("status without a token: exit %d %q", code, errOut)
	}
}

func TestSurface_UnreachableNode(t *testing.T) {
	url := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	code, _, errOut := runCLI(t, nil, "events", "list", "--addr", url)
	if code != 1 || !strings.HasPrefix(errOut, "lsnode events: cannot reach lsnode at "+url+": ") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestSurface_RefusesPublicBindWithoutToken(t *testing.T) {
	code, _, errOut := runCLI(t, nil, "serve", "--data", t.TempDir(), "--http", "0.0.0.0:0")
	if code != 1 || !strings.Contains(errOut, "is required when binding MCP HTTP to a non-loopback host") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestSurface_EnvironmentConfiguresServe(t *testing.T) {
	p := startLsnode(t, nodeOptions{Env: []string{"MEMPALACE_MCP_HTTP_TOKEN=hub-token", "MEMPALACE_SSE_MAX_CLIENTS=0"}})
	// The hub's token variable is honoured: no token, no status.
	if resp, _ := http.Get(p.URL + "/statusz"); resp == nil || resp.StatusCode != 401 {
		t.Fatalf("statusz without token: %v", resp)
	}
	code, out, errOut := runCLI(t, []string{"MEMPALACE_MCP_HTTP_TOKEN=hub-token"}, "status", "--addr", p.URL, "--json")
	if code != 0 || !strings.Contains(out, `"max_clients": 0`) {
		t.Fatalf("status: exit %d\n%s%s", code, out, errOut)
	}
}

// TestSurface_ConfigFileConfiguresServe: serve takes the settings of its
// --config file, under its variables and flags; a file with a mistake
// stops it with the key and line (exit 2) before the data dir is touched.
func TestSurface_ConfigFileConfiguresServe(t *testing.T) {
	file := filepath.Join(t.TempDir(), "lsnode.yaml")
	body := "mcp:\n  read-only: true\nlimits:\n  sse-max-clients: 0\nhttp:\n  http: 127.0.0.1:1\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	// The harness's --http beats the file's; LSNODE_SSE_MAX_CLIENTS beats
	// the file's cap; read-only comes from the file alone.
	p := startLsnode(t, nodeOptions{Token: "tok", Args: []string{"--config", file}, Env: []string{"LSNODE_SSE_MAX_CLIENTS=3"}})
	out := mustRun(t, p, "status", "--json")
	if !strings.Contains(out, `"read_only": true`) || !strings.Contains(out, `"max_clients": 3`) {
		t.Fatalf("status of a node configured by its file:\n%s", out)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("http:\n  http-write-timeout: 60\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	code, _, errOut := runCLI(t, nil, "serve", "--data", data, "--config", bad)
	if code != 2 || !strings.Contains(errOut, bad+":2: http.http-write-timeout: want a duration with a unit, such as 60s or 60ms") {
		t.Fatalf("serve with a bad file: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatalf("serve with a bad file touched its data dir (stat: %v)", err)
	}
	if code, out, errOut := runCLI(t, nil, "config", "check", file); code != 0 || !strings.Contains(out, "ok: 3 settings") {
		t.Fatalf("config check: exit %d, %q %q", code, out, errOut)
	}
}

// tailProc is a running `lsnode events tail --json`.
type tailProc struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	ids  []string
	errs *lockedBuffer
	done chan struct{}
}

func startTail(t *testing.T, p *lsnodeProc, args ...string) *tailProc {
	t.Helper()
	cmd := exec.Command(lsnodeBin(t), append([]string{"events", "tail", "--json", "--addr", p.URL}, args...)...)
	cmd.Env = append(cleanEnv(), "LSNODE_TOKEN="+p.opts.Token)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	tp := &tailProc{cmd: cmd, errs: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = tp.errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(tp.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e struct{ ID string }
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				tp.mu.Lock()
				tp.ids = append(tp.ids, e.ID)
				tp.mu.Unlock()
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return tp
}

func (tp *tailProc) seen() []string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]string(nil), tp.ids...)
}

func (tp *tailProc) has(id string) bool {
	for _, s := range tp.seen() {
		if s == id {
			return true
		}
	}
	return false
}

func TestSurface_TailFollowsAcrossRestart(t *testing.T) {
	p := startLsnode(t, nodeOptions{Token: "tail-token"})
	first := appendJSON(t, p)
	tp := startTail(t, p, "--since="+first)
	one := appendJSON(t, p)
	testwait.Until(t, 20*time.Second, "the tail to print the first event", func() bool { return tp.has(one) })

	p.Restart()
	two := appendJSON(t, p) // may land before the tail is back: it is replayed
	testwait.Until(t, 20*time.Second, "the tail to resume", func() bool { return tp.has(two) })
	if !strings.Contains(tp.errs.String(), "reconnecting") {
		t.Errorf("the tail did not report the reconnect: %q", tp.errs.String())
	}

	if err := tp.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-tp.done
	if err := tp.cmd.Wait(); err != nil {
		t.Fatalf("tail after SIGINT: %v (want exit 0)\n%s", err, tp.errs.String())
	}
	if got := strings.Join(tp.seen(), ","); got != one+","+two {
		t.Fatalf("tail printed %s, want %s,%s (each once, in order)", got, one, two)
	}
}

func TestSurface_GracefulShutdown(t *testing.T) {
	p := startLsnode(t, nodeOptions{})
	req, _ := http.NewRequest("GET", p.URL+"/logstream/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("open stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, resp.Body); ended <- err }()

	if err := p.Stop(); err != nil {
		t.Fatalf("SIGTERM: %v (want exit 0)\n%s", err, p.Logs())
	}
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("stream ended with %v, want a clean end", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream outlived the node")
	}
	logs := p.Logs()
	for _, phase := range []string{"shutdown: signal received", "shutdown: stopped accepting connections",
		"shutdown: in-flight requests finished", "shutdown: store closed", "shutdown: complete"} {
		if !strings.Contains(logs, phase) {
			t.Errorf("logs lack %q:\n%s", phase, logs)
		}
	}
	if !strings.Contains(logs, "sse_streams=1") {
		t.Errorf("the shutdown line does not count the open stream:\n%s", logs)
	}
}
