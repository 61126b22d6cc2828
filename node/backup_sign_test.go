package node

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/opsig"
)

// TestBackup_SignsOwnOpsIntoTheCopy: a backup of a running node and of
// its stopped data dir each restore to a log that holds, for every op of
// the node's own origin (one naming an artifact), a signature that
// verifies under the node's key, while the node's own database still
// stores none (it signs when it serves).
func TestBackup_SignsOwnOpsIntoTheCopy(t *testing.T) {
	ctx := context.Background()
	n := htStart(t, nil)
	self := n.store.ReplicaID()
	art, err := n.store.PutArtifact(ctx, store.ArtifactInput{Kind: "note", Content: "payload", CreatedBy: "a"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		in := store.AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a", Body: "b", Metadata: json.RawMessage(`{"z": 1, "a": [2]}`)}
		if i == 3 {
			in.ArtifactIDs = []string{art.Artifact.ID}
		}
		if _, err := n.store.Append(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	key, _, err := opsig.LoadOrMintKey(filepath.Join(n.cfg.DataDir, opsig.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	want := int(n.store.VersionVector()[self])

	live, err := nodeBackups{n}.Backup(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	checkRestoredSigned(t, live.(*BackupFile), self, pub, want)
	if ops, err := n.store.OpsAfter(ctx, self, 0, 100, 0); err != nil || len(ops) != want || len(ops[0].Signature) != 0 {
		t.Fatalf("the live log after a backup: %d ops, %v, first signature %x; want %d unsigned", len(ops), err, ops[0].Signature, want)
	}

	dir := n.cfg.DataDir
	if err := n.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	stopped, err := BackupDataDir(ctx, dir, false, "test")
	if err != nil {
		t.Fatal(err)
	}
	checkRestoredSigned(t, stopped, self, pub, want)
}

// checkRestoredSigned restores b into a new dir and checks that each of
// origin's want ops there carries a signature that verifies under pub.
func checkRestoredSigned(t *testing.T, b *BackupFile, origin string, pub ed25519.PublicKey, want int) {
	t.Helper()
	ctx := context.Background()
	defer b.Close()
	if n := b.Manifest().VersionVector[origin]; n != int64(want) {
		t.Fatalf("backup holds %d of %s, want %d", n, origin, want)
	}
	var buf bytes.Buffer
	if _, err := b.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep, err := Restore(ctx, &buf, dir, RestoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ReplicaID == origin {
		t.Fatalf("restored under the backup's id %s", origin)
	}
	cfg := store.DefaultConfig()
	cfg.Dir = dir
	s, err := store.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ops, err := s.OpsAfter(ctx, origin, 0, 100, 0)
	if err != nil || len(ops) != want {
		t.Fatalf("restored ops of %s: %d, %v; want %d", origin, len(ops), err, want)
	}
	for _, op := range ops {
		digests, err := s.ArtifactDigests(ctx, op.Event.ArtifactIDs)
		if err != nil {
			t.Fatal(err)
		}
		if err := opsig.Verify(pub, op.Event, digests, op.Signature); err != nil {
			t.Fatalf("restored op %s/%d (artifacts %v): %v", origin, op.Event.OriginSeq, op.Event.ArtifactIDs, err)
		}
	}
}
