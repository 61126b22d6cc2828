package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node"
	"github.com/lsnode/lsnode/store"
)

func appendInput(body string) store.AppendInput {
	return store.AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "alice", Body: body}
}

// startNode runs an in-process node on a free loopback port.
func startNode(t *testing.T, dir, addr, token string) *node.Node {
	t.Helper()
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.HTTP.Addr, cfg.Auth.Token = dir, addr, token
	return startNodeWith(t, cfg)
}

// startNodeWith runs an in-process node with cfg and a registry of its own.
func startNodeWith(t *testing.T, cfg node.Config) *node.Node {
	t.Helper()
	cfg.Registry = prometheus.NewRegistry()
	n, err := node.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Shutdown(context.Background()) })
	return n
}

// cli runs one lsnode command line and returns its exit code and output.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// mustCLI runs a command that must succeed.
func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := cli(t, args...)
	if code != 0 {
		t.Fatalf("lsnode %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func TestClient_EventsRoundTrip(t *testing.T) {
	t.Setenv("LSNODE_TOKEN", "tok")
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "tok")
	addr := "--addr=" + n.URL()
	out := mustCLI(t, "events", "append", addr, "--json", "--type=task.request", "--stream=project/x", "--room=delegation",
		"--from=alice", "--to=bob", "--body=please review\nthe patch", "--metadata", `{"k": "v"}`)
	var res struct {
		Success bool `json:"success"`
		Event   struct {
			ID       string         `json:"id"`
			Metadata map[string]any `json:"metadata"`
		} `json:"event"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.Success || res.Event.Metadata["k"] != "v" {
		t.Fatalf("append --json: %v\n%s", err, out)
	}
	id := res.Event.ID

	out = mustCLI(t, "events", "list", addr, "--stream=project/x")
	if !strings.Contains(out, id) || !strings.Contains(out, "please review …") || !strings.HasPrefix(out, "SEQ") {
		t.Fatalf("list table:\n%s", out)
	}
	out = mustCLI(t, "owed", addr, "--agent=bob")
	if !strings.Contains(out, id) {
		t.Fatalf("owed before the ack:\n%s", out)
	}
	out = mustCLI(t, "awaiting", addr, "--agent=alice")
	if !strings.Contains(out, id) || !strings.HasPrefix(out, "AGE") || !strings.Contains(out, "1 asks awaiting a reply") {
		t.Fatalf("awaiting before the ack:\n%s", out)
	}
	if out = mustCLI(t, "awaiting", addr, "--agent=alice", "--older-than=1h", "--json"); strings.Contains(out, id) || !strings.Contains(out, `"count": 0`) {
		t.Fatalf("awaiting older than an hour:\n%s", out)
	}
	if code, _, errOut := cli(t, "awaiting", addr, "--agent=alice", "--older-than=soon"); code == 0 || !strings.Contains(errOut, "older_than='soon'") {
		t.Fatalf("a bad --older-than: exit %d %s", code, errOut)
	}
	out = mustCLI(t, "events", "ack", addr, "--event="+id, "--from=bob", "--status=applied", "--body=done")
	if !strings.Contains(out, "event.ack") {
		t.Fatalf("ack table:\n%s", out)
	}
	out = mustCLI(t, "owed", addr, "--agent=bob", "--json")
	if strings.Contains(out, id) {
		t.Fatalf("still owed after an applied ack:\n%s", out)
	}
	if out = mustCLI(t, "awaiting", addr, "--agent=alice", "--json"); strings.Contains(out, id) {
		t.Fatalf("still awaited after an applied ack:\n%s", out)
	}
}

func TestClient_Artifacts(t *testing.T) {
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "")
	addr := "--addr=" + n.URL()
	dir := t.TempDir()
	src := filepath.Join(dir, "p.diff")
	content := "diff --git a/x b/x\r\n+ü" // no trailing newline, CRLF: two warnings
	if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli(t, "artifact", "put", addr, "--kind=patch", "--created-by=alice", "--file="+src)
	if code != 0 || strings.Count(errOut, "warning: ") != 2 {
		t.Fatalf("put: exit %d\n%s%s", code, out, errOut)
	}
	var id string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "id" {
			id = f[1]
		}
	}
	if !strings.HasPrefix(id, "art_") {
		t.Fatalf("no id in\n%s", out)
	}
	if got := mustCLI(t, "artifact", "get", addr, id); got != content {
		t.Fatalf("get: %q, want %q", got, content)
	}
	dst := filepath.Join(dir, "out.diff")
	mustCLI(t, "artifact", "get", addr, "--out="+dst, id)
	if b, _ := os.ReadFile(dst); string(b) != content {
		t.Fatalf("get --out wrote %q", b)
	}
	code, _, errOut = cli(t, "artifact", "get", addr, "art_nope")
	if code != 1 || errOut != "lsnode artifact: artifact 'art_nope' not found\n" {
		t.Fatalf("missing artifact: exit %d %q", code, errOut)
	}
}

func TestClient_Status(t *testing.T) {
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "")
	out := mustCLI(t, "status", "--addr="+n.URL())
	if !regexp.MustCompile(`(?m)^replica +`+n.Store().ReplicaID()+`$`).MatchString(out) || !strings.Contains(out, "ORIGIN") {
		t.Fatalf("status:\n%s", out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "status", "--addr="+n.URL(), "--json")), &m); err != nil || m["replica_id"] == nil {
		t.Fatalf("status --json: %v %v", err, m)
	}
}

func TestClient_Failures(t *testing.T) {
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "tok")
	// A port nothing listens on.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String()
	ln.Close()
	cases := []struct {
		name string
		env  string
		args []string
		code int
		want string
	}{
		{"unreachable", "", []string{"status", "--addr=" + dead}, 1, "lsnode status: cannot reach lsnode at " + dead + ": "},
		{"no token", "", []string{"status", "--addr=" + n.URL()}, 1, "lsnode status: 401 Unauthorized"},
		{"wrong token", "nope", []string{"events", "list", "--addr=" + n.URL()}, 1, "lsnode events: 401 Unauthorized"},
		{"tool refusal", "tok", []string{"events", "append", "--addr=" + n.URL(), "--type=Bad", "--stream=s", "--room=r", "--from=a"},
			1, "lsnode events: type='Bad' is not a valid event type"},
		{"missing flag", "tok", []string{"events", "append", "--addr=" + n.URL(), "--type=x"}, 2, "lsnode events: --stream is required"},
		{"bad addr", "", []string{"status", "--addr=ftp://x"}, 2, `lsnode status: --addr "ftp://x" is not an http(s) URL`},
		{"unknown subcommand", "", []string{"events", "frob"}, 2, `unknown subcommand "frob"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LSNODE_TOKEN", tc.env)
			code, _, errOut := cli(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
}

func TestClient_TokenSources(t *testing.T) {
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "from-file")
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("from-file\n"), 0o600)
	t.Setenv("LSNODE_TOKEN", "")
	t.Setenv("MEMPALACE_MCP_HTTP_TOKEN", "from-file")
	mustCLI(t, "status", "--addr="+n.URL())
	t.Setenv("MEMPALACE_MCP_HTTP_TOKEN", "wrong")
	mustCLI(t, "status", "--addr="+n.URL(), "--token-file="+file)
	t.Setenv("LSNODE_TOKEN_FILE", file)
	mustCLI(t, "status", "--addr="+n.URL())
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// tailWithin is how long a test waits for a tail to print or do what it
// expects.
const tailWithin = 15 * time.Second

func TestClient_TailResumesAfterRestart(t *testing.T) {
	dir := t.TempDir()
	n1 := startNode(t, dir, "127.0.0.1:0", "")
	url := n1.URL()
	hostport := strings.TrimPrefix(url, "http://")
	appendVia := func(body string) string {
		out := mustCLI(t, "events", "append", "--addr="+url, "--json", "--type=note", "--stream=s", "--room=r",
			"--from=alice", "--body="+body)
		var res struct{ Event struct{ ID string } }
		json.Unmarshal([]byte(out), &res)
		return res.Event.ID
	}
	first := appendVia("zero")

	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"events", "tail", "--addr=" + url, "--json", "--since=" + first}, &out, &errOut)
	}()
	one := appendVia("one")
	testwait.Until(t, tailWithin, "the first event", func() bool { return strings.Contains(out.String(), one) })

	ctxS, cancelS := context.WithTimeout(context.Background(), 5*time.Second)
	if err := n1.Shutdown(ctxS); err != nil {
		t.Fatal(err)
	}
	cancelS()
	testwait.Until(t, tailWithin, "the tail to notice", func() bool { return strings.Contains(errOut.String(), "reconnecting") })
	n2 := startNode(t, dir, hostport, "")
	// Written before the tail is back: it must be replayed, once.
	w, err := n2.Store().Append(context.Background(), appendInput("two"))
	if err != nil {
		t.Fatal(err)
	}
	three := appendVia("three")
	testwait.Until(t, tailWithin, "the events after the restart", func() bool { return strings.Contains(out.String(), three) })
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("tail exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var ids []string
	for _, l := range lines {
		var e struct{ ID string }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("tail --json line %q: %v", l, err)
		}
		ids = append(ids, e.ID)
	}
	if strings.Join(ids, ",") != strings.Join([]string{one, w.Event.ID, three}, ",") {
		t.Fatalf("tail printed %v, want %v", ids, []string{one, w.Event.ID, three})
	}
}

// TestClient_NodeThatNeverAnswers: a node that takes the connection and
// never answers fails the command after answerTimeout instead of hanging it.
func TestClient_NodeThatNeverAnswers(t *testing.T) {
	defer func(d time.Duration) { answerTimeout = d }(answerTimeout)
	answerTimeout = 200 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held <- c // read nothing, answer nothing
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for len(held) > 0 {
			(<-held).Close()
		}
	})
	code, _, errOut := cli(t, "status", "--addr=http://"+ln.Addr().String())
	if code != 1 || !strings.Contains(errOut, "timeout awaiting response headers") {
		t.Fatalf("exit %d, stderr %q; want exit 1 and the timeout named", code, errOut)
	}
}
