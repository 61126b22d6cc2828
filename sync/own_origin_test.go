package lssync_test

import (
	"context"
	"testing"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/simnet"
)

// recoveringLog is a MemLog that pulls its own origin back, as a store
// restored under its own identity does until its recovery ends.
type recoveringLog struct {
	*simnet.MemLog
	pulls bool
}

func (r *recoveringLog) PullsOwnOrigin() bool { return r.pulls }

// TestLink_PullsOwnOriginOnlyWhileRecovering: rep_a restored from an old
// copy holds 1 of its 3 ops, and its peer holds all 3. A link never pulls
// its own origin, unless its log says it is pulling it back: then one
// round brings rep_a's missing ops.
func TestLink_PullsOwnOriginOnlyWhileRecovering(t *testing.T) {
	ctx := context.Background()
	for _, pulls := range []bool{false, true} {
		old := simnet.NewMemLog("rep_a", fixedWall)
		for range 3 {
			old.Append("own op", false)
		}
		peer := simnet.NewMemLog("rep_b", fixedWall)
		if _, err := peer.ApplyBatch(ctx, store.Batch{Ops: old.Ops("rep_a")}); err != nil {
			t.Fatal(err)
		}
		restored := &recoveringLog{MemLog: simnet.NewMemLog("rep_a", fixedWall), pulls: pulls}
		if _, err := restored.ApplyBatch(ctx, store.Batch{Ops: old.Ops("rep_a")[:1]}); err != nil {
			t.Fatal(err)
		}
		cfg := lssync.DefaultConfig("c1")
		a, b := lssync.NewLink(cfg, restored, true), lssync.NewLink(cfg, peer, false)
		b.Open(t0)
		pump(t, a, b, a.Open(t0), t0)
		want := int64(1)
		if pulls {
			want = 3
		}
		if got := restored.VersionVector()["rep_a"]; got != want {
			t.Fatalf("pulls own origin %v: rep_a holds its origin up to %d, want %d", pulls, got, want)
		}
		if q := restored.Quarantined(); len(q) != 0 {
			t.Fatalf("quarantined %v", q)
		}
	}
}
