package lssync_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/simnet"
)

// TestLink_NoRelayToDirectFollower: a peer whose Vector names an origin
// it follows directly gets no relayed op of that origin; other origins'
// ops are relayed and this node's own are pushed as before.
func TestLink_NoRelayToDirectFollower(t *testing.T) {
	const x, y = "rep_0000000000000000000000000000000x", "rep_0000000000000000000000000000000y"
	ctx := context.Background()
	cfg := lssync.DefaultConfig("c1")
	la, lb := simnet.NewMemLog("rep_a", fixedWall), simnet.NewMemLog("rep_b", fixedWall)
	third := func(seq int64) store.Batch {
		var b store.Batch
		for _, origin := range []string{x, y} {
			b.Ops = append(b.Ops, store.Op{PrevSeq: seq - 1, Event: store.Event{
				ID: fmt.Sprintf("evt_%s_%d", origin, seq), OriginReplica: origin, OriginSeq: seq, HLC: "1.0", Type: "note"}})
		}
		return b
	}
	if _, err := la.ApplyBatch(ctx, third(1)); err != nil {
		t.Fatal(err)
	}
	a, b := lssync.NewLink(cfg, la, true), lssync.NewLink(cfg, lb, false)
	b.SetDirect(func() []string { return []string{x} })
	b.Open(t0)
	pump(t, a, b, a.Open(t0), t0) // handshake, a round with Vectors, b pulls and follows
	if got := lb.VersionVector(); got[x] != 1 || got[y] != 1 {
		t.Fatalf("b holds %v after the first round, want x and y at 1", got)
	}

	batch := third(2)
	if _, err := la.ApplyBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	own := la.Append("own", false)
	frames, err := a.Local(ctx, append(batch.Ops, la.Ops("rep_a")...))
	if err != nil {
		t.Fatal(err)
	}
	var pushed []string
	for _, f := range frames {
		for _, op := range f.GetBatch().GetOps() {
			pushed = append(pushed, op.GetOriginReplica())
		}
	}
	if slices.Contains(pushed, x) || !slices.Contains(pushed, y) || !slices.Contains(pushed, own.OriginReplica) {
		t.Fatalf("pushed ops of %v, want y's and a's own but not x's (b follows x directly)", pushed)
	}
	// The same ops in two lists (two commits queued) give the same frames.
	split, err := a.Local(ctx, batch.Ops, la.Ops("rep_a"))
	if err != nil {
		t.Fatal(err)
	}
	if len(split) != len(frames) {
		t.Fatalf("%d frames from two lists, %d from one", len(split), len(frames))
	}
	for i := range frames {
		if !proto.Equal(split[i], frames[i]) {
			t.Fatalf("frame %d differs: %v from two lists, %v from one", i, split[i], frames[i])
		}
	}
}
