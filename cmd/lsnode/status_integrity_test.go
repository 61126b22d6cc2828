package main

import (
	"crypto/ed25519"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/sync/opsig"
)

// TestClient_StatusNodeKey: `lsnode status` shows the fingerprint of the
// key the node minted in its data dir, and the unsigned-origins policy.
func TestClient_StatusNodeKey(t *testing.T) {
	dir := t.TempDir()
	n := startNode(t, dir, "127.0.0.1:0", "")
	key, minted, err := opsig.LoadOrMintKey(filepath.Join(dir, opsig.KeyFile))
	if err != nil || minted {
		t.Fatalf("the node did not leave its key in the data dir: minted=%v err=%v", minted, err)
	}
	fp := opsig.Fingerprint(key.Public().(ed25519.PublicKey))
	out := mustCLI(t, "status", "--addr="+n.URL())
	if !strings.Contains(out, "node key") || !strings.Contains(out, fp) ||
		!strings.Contains(out, "0 verified, 0 refused, 0 key conflicts; unsigned origins: accept") {
		t.Fatalf("status lacks the node key %s or the signature counts:\n%s", fp, out)
	}
}
