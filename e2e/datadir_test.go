//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// One process per data dir (internal/datadir): a second serve on a dir
// in use is refused naming the holder, a holder killed with SIGKILL does
// not block a restart, and a serve refused for its flags leaves its data
// dir untouched.

// pid is the process id of p's current run.
func (p *lsnodeProc) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process.Pid
}

// lockRecord is what DIR/LOCK says of its holder.
func lockRecord(t *testing.T, dir string) (pid int, http string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "LOCK"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		PID  int    `json:"pid"`
		HTTP string `json:"http"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatalf("LOCK holds %q: %v", raw, err)
	}
	return rec.PID, rec.HTTP
}

func TestDataDir_SecondServeIsRefused(t *testing.T) {
	first := startLsnode(t, nodeOptions{})
	before := rpMustAppend(t, first, "agent-a", 1)
	code, stdout, stderr := runCLI(t, nil, "serve", "--data", first.opts.DataDir,
		"--http", "127.0.0.1:"+strconv.Itoa(freePort(t)))
	if code != 1 {
		t.Errorf("second serve on %s: exit %d, want 1\nstdout: %s\nstderr: %s", first.opts.DataDir, code, stdout, stderr)
	}
	for _, want := range []string{first.opts.DataDir, "pid " + strconv.Itoa(first.pid()), first.URL} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the refusal does not name %s:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "lsnode serving") {
		t.Errorf("the second serve started serving:\n%s", stderr)
	}
	// The first keeps serving and writing, as the only writer of its
	// replica id.
	after := rpMustAppend(t, first, "agent-a", 3)
	rpConverged(t, startTimeout, append(before, after...), first)
	if pid, http := lockRecord(t, first.opts.DataDir); pid != first.pid() || http != first.URL {
		t.Errorf("LOCK names pid %d at %s, want %d at %s", pid, http, first.pid(), first.URL)
	}
}

func TestDataDir_KilledHolderDoesNotBlockRestart(t *testing.T) {
	p := startLsnode(t, nodeOptions{})
	ids := rpMustAppend(t, p, "agent-a", 2)
	killed := p.pid()
	p.Kill()
	if pid, _ := lockRecord(t, p.opts.DataDir); pid != killed {
		t.Fatalf("LOCK names pid %d after the kill, want the killed %d (the record stays; only the lock went)", pid, killed)
	}
	p.Restart()
	if pid, http := lockRecord(t, p.opts.DataDir); pid != p.pid() || http != p.URL {
		t.Errorf("LOCK names pid %d at %s after the restart, want %d at %s", pid, http, p.pid(), p.URL)
	}
	rpConverged(t, startTimeout, append(ids, rpMustAppend(t, p, "agent-a", 1)...), p)
}

// TestDataDir_BadPortTouchesNothing: a port out of range, and a port
// another process holds (found only once the store is open), each leave a
// new dir absent and an existing empty dir empty.
func TestDataDir_BadPortTouchesNothing(t *testing.T) {
	lsnodeBin(t)
	holder := startLsnode(t, nodeOptions{})
	held := strings.TrimPrefix(holder.URL, "http://")
	for _, c := range []struct{ addr, want string }{{"127.0.0.1:99999", "99999"}, {held, "address already in use"}} {
		fresh := filepath.Join(t.TempDir(), "new")
		existing := t.TempDir()
		for _, dir := range []string{fresh, existing} {
			code, _, stderr := runCLI(t, nil, "serve", "--data", dir, "--http", c.addr)
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Errorf("serve --http %s: exit %d, stderr %q; want a failure naming %q", c.addr, code, stderr, c.want)
			}
		}
		if _, err := os.Stat(fresh); !os.IsNotExist(err) {
			t.Errorf("the failed serve on %s created %s (stat: %v)", c.addr, fresh, err)
		}
		if names, err := os.ReadDir(existing); err != nil || len(names) != 0 {
			t.Errorf("the failed serve on %s left %v in %s (%v)", c.addr, names, existing, err)
		}
	}
}
