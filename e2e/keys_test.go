//go:build e2e

package e2e

import (
	"encoding/base64"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testpki"
)

// Gossip key rotation against a running mesh of real processes:
// `lsnode keys install`, `use`, `remove` on three nodes with no restart,
// membership alive throughout, the rotated keyring saved to each node's
// key file, and a node holding only the old key kept out afterwards. The
// mesh is secured as README's "Securing a mesh" says: HTTPS, mutual TLS
// between the members gossip finds, an encrypted gossip keyring.

// keysOf reads the keys of a key file (base64 lines, comments skipped).
func keysOf(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// keysCLI runs `lsnode keys args...` on n and requires success and want
// in the output.
func keysCLI(t *testing.T, n *mbNode, want string, args ...string) string {
	t.Helper()
	code, out, errOut := n.p.CLI(append([]string{"keys"}, args...)...)
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("lsnode keys %v on %s: exit %d, want %q\n%s%s", args, n.name, code, want, out, errOut)
	}
	t.Logf("lsnode keys %s on %s:\n%s", args[0], n.name, out)
	return out
}

// downWatcher polls every node's member table until stopped and records
// any member seen dead, left or missing.
type downWatcher struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	seen []string
}

func watchAlive(t *testing.T, nodes []*mbNode) *downWatcher {
	w := &downWatcher{stop: make(chan struct{}), done: make(chan struct{})}
	names := mbNames(nodes...)
	go func() {
		defer close(w.done)
		for {
			for _, n := range nodes {
				st, err := rpStates(n.p)
				if err != nil {
					continue // a slow answer is not a membership change
				}
				for _, name := range names {
					if s := st[name]; s != "alive" && s != "suspect" {
						w.mu.Lock()
						w.seen = append(w.seen, n.name+" saw "+name+" "+s)
						w.mu.Unlock()
					}
				}
			}
			select {
			case <-w.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(w.end)
	return w
}

// end stops the watcher and waits for it; idempotent.
func (w *downWatcher) end() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

func (w *downWatcher) downs() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

func TestKeys_RotationWithoutRestart(t *testing.T) {
	lsnodeBin(t)
	fast := []string{"--rejoin-interval", "1s"}
	files := []string{mbKeyFile(t, 11), mbKeyFile(t, 11), mbKeyFile(t, 11)}
	oldKey := keysOf(t, files[0])[0]
	newKey := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("n", 32)))

	ca := testpki.NewCA(t, "mesh-ca")
	seed := mbStart(t, "k0", mbOptions{keyFile: files[0], extra: fast, tlsCA: ca})
	nodes := []*mbNode{seed,
		mbStart(t, "k1", mbOptions{keyFile: files[1], join: seed.gossip, extra: fast, tlsCA: ca}),
		mbStart(t, "k2", mbOptions{keyFile: files[2], join: seed.gossip, extra: fast, tlsCA: ca})}
	all := mbProcs(nodes...)
	rpWaitStates(t, mbStateLimit, all, rpAll("alive", "k0", "k1", "k2"))
	watch := watchAlive(t, nodes)

	keysCLI(t, nodes[0], "3/3 members installed key", "install", newKey)
	out := keysCLI(t, nodes[1], "3/3 members answered", "list")
	for _, want := range []string{newKey + "  3/3      -", oldKey + "  3/3      3/3"} {
		if !strings.Contains(out, want) {
			t.Fatalf("keys list lacks %q:\n%s", want, out)
		}
	}
	keysCLI(t, nodes[1], "3/3 members switched to key", "use", newKey)

	// The primary cannot be removed; nothing changes.
	code, out, errOut := nodes[2].p.CLI("keys", "remove", newKey)
	if code != 1 || !strings.Contains(errOut, "409 Conflict: membership: the key is the primary key") {
		t.Fatalf("remove the primary: exit %d\n%s%s", code, out, errOut)
	}
	keysCLI(t, nodes[2], "3/3 members removed key", "remove", oldKey)
	out = keysCLI(t, nodes[0], "3/3 members answered", "list")
	if strings.Contains(out, oldKey) || !strings.Contains(out, newKey+"  3/3      3/3") {
		t.Fatalf("keys list after the rotation:\n%s", out)
	}

	// Gossip and replication keep working on the new key alone.
	var written []string
	for _, n := range nodes {
		written = append(written, rpMustAppend(t, n.p, "agent-"+n.name, 3)...)
	}
	rpConverged(t, rpConvergeLimit, written, all...)
	for _, n := range nodes {
		if strings.Contains(n.p.Logs(), "TLS handshake") {
			t.Fatalf("%s: a TLS handshake failed between members:\n%s", n.name, n.p.Logs())
		}
	}
	watch.end()
	if downs := watch.downs(); len(downs) > 0 {
		t.Fatalf("membership did not stay alive during the rotation: %v", downs)
	}
	for i, f := range files {
		if got := keysOf(t, f); len(got) != 1 || got[0] != newKey {
			t.Fatalf("k%d key file holds %v, want only the new key", i, got)
		}
	}

	// A node holding only the old key cannot join.
	stale := mbStart(t, "stale", mbOptions{keyFile: mbKeyFile(t, 11), join: seed.gossip, extra: fast})
	rpLogsContain(t, mbStateLimit, stale.p, "gossip join incomplete", "no installed keys could decrypt the message")
	// It keeps retrying (every second); watch three rounds: no member
	// ever lists it. The nodes are processes on the wall clock, so the
	// window is real time.
	for watchUntil := time.Now().Add(3 * time.Second); time.Now().Before(watchUntil); time.Sleep(100 * time.Millisecond) {
		for _, n := range nodes {
			st, err := rpStates(n.p)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := st["stale"]; ok {
				t.Fatalf("%s lists the node holding only the removed key: %v", n.name, st)
			}
		}
	}

	// A restart keeps the rotated keyring: k1 comes back from its file.
	nodes[1].p.Restart()
	rpWaitStates(t, mbStateLimit, all, rpAll("alive", "k0", "k1", "k2"))
}
