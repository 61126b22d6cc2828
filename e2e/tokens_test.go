//go:build e2e

package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// tkSignal sends sig to the running process without waiting for it.
func tkSignal(t *testing.T, p *lsnodeProc, sig syscall.Signal) {
	t.Helper()
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v: %v", sig, err)
	}
}

// tkStatus is the status of GET path with a bearer token.
func tkStatus(t *testing.T, p *lsnodeProc, path, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// tkEventCount is the count of GET /logstream/events?limit=500.
func tkEventCount(t *testing.T, p *lsnodeProc, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.URL+"/logstream/events?limit=500", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct{ Count int }
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatalf("decode /logstream/events: %v", err)
	}
	return page.Count
}

// TestTokens_FileAndSIGHUP runs `lsnode serve --tokens-file` beside the
// shared token: an agent token writes as its own name through the CLI and
// is refused as another; SIGHUP swaps in a new file without a restart; a
// broken file on SIGHUP keeps the current tokens. No token reaches the log.
func TestTokens_FileAndSIGHUP(t *testing.T) {
	const (
		shared  = "e2e-shared-token"
		agent   = "e2e-agent-token-pi"
		next    = "e2e-agent-token-ci"
		reloads = 20 * time.Second
	)
	file := filepath.Join(t.TempDir(), "tokens.json")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"tokens": [{"token": "` + agent + `", "name": "pi", "write_as": ["pi@laptop"]}]}`)
	p := startLsnode(t, nodeOptions{Token: shared, Args: []string{"--tokens-file", file}})

	asAgent := []string{"LSNODE_ADDR=" + p.URL, "LSNODE_TOKEN=" + agent}
	base := []string{"events", "append", "--json", "--type=note", "--stream=project/e2e", "--room=r", "--to=boss"}
	if code, out, errOut := runCLI(t, asAgent, append(base, "--from=pi@laptop")...); code != 0 || !strings.Contains(out, `"success": true`) {
		t.Fatalf("append as its own name: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, asAgent, append(base, "--from=eve")...)
	if code == 0 || !strings.Contains(errOut, `from_agent 'eve' is not a name token "pi" may write as (it may write as: pi@laptop)`) {
		t.Fatalf("append as another name: exit %d\n%s%s", code, out, errOut)
	}
	if n := tkEventCount(t, p, shared); n != 1 {
		t.Fatalf("the log holds %d events after one accepted and one refused append", n)
	}
	if got := tkStatus(t, p, "/metrics", agent); got != http.StatusForbidden {
		t.Fatalf("agent token on /metrics: %d, want 403", got)
	}
	if got := tkStatus(t, p, "/metrics", shared); got != http.StatusOK {
		t.Fatalf("shared token on /metrics: %d, want 200", got)
	}

	write(`{"tokens": [{"token": "` + next + `", "name": "ci", "write_as": ["ci-*"], "read": "all"}]}`)
	tkSignal(t, p, syscall.SIGHUP)
	testwait.Until(t, reloads, "the new token to work and the removed one to get 401", func() bool {
		return tkStatus(t, p, "/logstream/events", next) == http.StatusOK &&
			tkStatus(t, p, "/logstream/events", agent) == http.StatusUnauthorized
	})
	if !strings.Contains(p.Logs(), "tokens file reloaded") || !strings.Contains(p.Logs(), "tokens=1") {
		t.Fatalf("the reload is not logged with its count:\n%s", p.Logs())
	}

	write(`{"tokens": [{"token": "` + next + `"}, {"token": "` + next + `"}]}`)
	tkSignal(t, p, syscall.SIGHUP)
	testwait.Until(t, reloads, "the failed reload to be logged", func() bool {
		return strings.Contains(p.Logs(), "tokens reload failed; keeping the current tokens")
	})
	if got := tkStatus(t, p, "/logstream/events", next); got != http.StatusOK {
		t.Fatalf("after a failed reload the current token gets %d", got)
	}
	if got := tkStatus(t, p, "/healthz", ""); got != http.StatusOK {
		t.Fatalf("the node is not serving after SIGHUP: %d", got)
	}
	for _, tok := range []string{shared, agent, next} {
		if strings.Contains(p.Logs(), tok) {
			t.Fatalf("the log contains a token")
		}
	}
}

// A bad tokens file stops `lsnode serve` at start with a non-zero exit
// and an error naming the entry.
func TestTokens_BadFileExitsAtStart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(file, []byte(`{"tokens": [{"token": "a", "name": "pi", "bogus": 1}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, nil, "serve", "--data", t.TempDir(), "--http", "127.0.0.1:0", "--tokens-file", file)
	if code == 0 || !strings.Contains(errOut, file) || !strings.Contains(errOut, `unknown field "bogus"`) {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}
