package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// TestRecovery_OwnOriginPulledBackBeforeWrites restores an old snapshot
// of A under A's own identity, as restore --keep-identity does: the store
// refuses local writes and stores nothing, takes A's newer ops from a
// peer like any origin's, and once recovery ends numbers its next op after
// them with a stamp above theirs, though its wall clock is far behind.
func TestRecovery_OwnOriginPulledBackBeforeWrites(t *testing.T) {
	ctx := context.Background()
	wall := hlc.NewManualClock(testClockStart)
	a := openReplicaAt(t, t.TempDir(), repA, wall)
	for range 3 {
		mustAppend(t, a, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a"})
	}
	path, info, err := a.Snapshot(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	wall.Advance(time.Hour) // the newer ops are an hour ahead of the restored node's clock
	for range 2 {
		mustAppend(t, a, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a"})
	}
	newer := allOps(t, a)[repA][3:]

	dir := t.TempDir()
	if err := os.Rename(path, filepath.Join(dir, DBFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := PrepareRestored(ctx, filepath.Join(dir, DBFile)); err != nil {
		t.Fatal(err)
	}
	if err := WriteReplicaID(dir, repA); err != nil {
		t.Fatal(err)
	}
	if err := WriteReplicaID(dir, repA); err == nil {
		t.Fatal("WriteReplicaID replaced an identity")
	}
	if err := WriteRecoveryMarker(dir, repA, info.VersionVector[repA], "2026-01-01T00:00:00Z"); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, Config{Dir: dir, Wall: hlc.NewManualClock(testClockStart)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.ReplicaID() != repA || !r.Recovering() || !r.PullsOwnOrigin() {
		t.Fatalf("replica %s recovering %v", r.ReplicaID(), r.Recovering())
	}
	before := tableCounts(t, r)
	_, err = r.Append(ctx, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a"})
	if !errors.Is(err, ErrRecovering) {
		t.Fatalf("append while recovering: %v", err)
	}
	if _, err := r.PutArtifact(ctx, ArtifactInput{Kind: "note", Content: "x", CreatedBy: "a"}); !errors.Is(err, ErrRecovering) {
		t.Fatalf("artifact while recovering: %v", err)
	}
	if _, err := r.PatchSubmit(ctx, PatchInput{Stream: "s", FromAgent: "a", Content: "diff"}); !errors.Is(err, ErrRecovering) {
		t.Fatalf("patch while recovering: %v", err)
	}
	if !sameCounts(before, tableCounts(t, r)) {
		t.Fatal("a refused write stored something")
	}
	// Invalid input still gets its own error first.
	if _, err := r.Append(ctx, AppendInput{Type: "note"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("invalid append while recovering: %v", err)
	}
	if res := mustApply(t, r, Batch{Ops: newer}); res.Applied != 2 {
		t.Fatalf("own newer ops: %s", fmtResult(res))
	}
	if err := r.EndRecovery(ctx); err != nil {
		t.Fatal(err)
	}
	if r.Recovering() {
		t.Fatal("still recovering")
	}
	if _, err := os.Stat(filepath.Join(dir, RecoveryFile)); !os.IsNotExist(err) {
		t.Fatalf("marker still there: %v", err)
	}
	w := mustAppend(t, r, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a"})
	if w.OriginSeq != 6 || w.HLC <= newer[1].Event.HLC {
		t.Fatalf("first write after recovery: seq %d hlc %s; the newest pulled back is %s", w.OriginSeq, w.HLC, newer[1].Event.HLC)
	}
}

func TestRecovery_MarkerOfAnotherReplicaRefused(t *testing.T) {
	dir := t.TempDir()
	if err := WriteRecoveryMarker(dir, repB, 3, "2026-01-01T00:00:00Z"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), Config{Dir: dir, ReplicaID: repA}); err == nil {
		t.Fatal("opened a dir whose marker names another replica")
	}
	if err := os.WriteFile(filepath.Join(dir, RecoveryFile), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), Config{Dir: dir, ReplicaID: repA}); err == nil {
		t.Fatal("opened a dir with a corrupt marker")
	}
}
