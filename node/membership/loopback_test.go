package membership

import (
	"crypto/rand"
	"strings"
	"testing"
	"time"
)

// startLoopbackNode runs a node on real UDP and TCP sockets on 127.0.0.1,
// on a free port, with fast timers.
func startLoopbackNode(t *testing.T, name string, keyring [][]byte) *testNode {
	t.Helper()
	cfg := DefaultConfig(testCluster)
	cfg.Name = name
	cfg.BindAddr = "127.0.0.1:0"
	cfg.Keyring = keyring
	cfg.Meta = Meta{ReplicaID: "rep_" + name}
	cfg.RejoinInterval = 100 * time.Millisecond
	cfg.Logger = testLogger()
	cfg.tune = fastTimers
	h := newRecorder()
	m, err := Create(cfg, h)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return &testNode{name: name, m: m, h: h}
}

func randomKey(t *testing.T, n int) []byte {
	t.Helper()
	k := make([]byte, n)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

// TestLoopback_WrongGossipKeyKeptOut: nodes sharing a key form a cluster
// over real sockets; a node with another key, or none, cannot join, and
// is not even seen (its packets do not decrypt, so nothing is learnt).
func TestLoopback_WrongGossipKeyKeptOut(t *testing.T) {
	k1, k2 := randomKey(t, 32), randomKey(t, 16)
	a := startLoopbackNode(t, "a", [][]byte{k1})
	b := startLoopbackNode(t, "b", [][]byte{k1})
	seed := a.m.LocalNode().Addr
	if !strings.HasPrefix(seed, "127.0.0.1:") {
		t.Fatalf("a advertises %q", seed)
	}
	if _, err := b.m.Join([]string{seed}); err != nil {
		t.Fatalf("b with the right key: %v", err)
	}
	waitStates(t, []*testNode{a, b}, []string{"a", "b"}, StateAlive)

	wrong := startLoopbackNode(t, "wrong", [][]byte{k2})
	if _, err := wrong.m.Join([]string{seed}); err == nil {
		t.Fatal("a node with another key joined")
	}
	plain := startLoopbackNode(t, "plain", nil)
	if _, err := plain.m.Join([]string{seed}); err == nil {
		t.Fatal("a node without a key joined")
	}
	// Rotation: a node whose primary is k2 but that also holds k1 still
	// cannot be read by a and b, which hold only k1.
	rotated := startLoopbackNode(t, "rotated", [][]byte{k2, k1})
	if _, err := rotated.m.Join([]string{seed}); err == nil {
		t.Fatal("a node encrypting with a key the cluster lacks joined")
	}
	for _, n := range []*testNode{a, b} {
		for _, m := range n.m.Members() {
			if m.Name != "a" && m.Name != "b" {
				t.Fatalf("%s lists %+v", n.name, m)
			}
		}
		if got := n.h.upNames(); len(got) != 1 {
			t.Fatalf("%s handler up = %v", n.name, got)
		}
	}
}

// TestLoopback_KeyRotation: a node holding the new key as primary and the
// old one as secondary joins nodes that already hold both.
func TestLoopback_KeyRotation(t *testing.T) {
	oldKey, newKey := randomKey(t, 32), randomKey(t, 32)
	a := startLoopbackNode(t, "a", [][]byte{oldKey, newKey})
	b := startLoopbackNode(t, "b", [][]byte{newKey, oldKey})
	if _, err := b.m.Join([]string{a.m.LocalNode().Addr}); err != nil {
		t.Fatal(err)
	}
	waitStates(t, []*testNode{a, b}, []string{"a", "b"}, StateAlive)
}
