package lssync_test

import (
	"context"
	"testing"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/simnet"
)

// TestLink_FollowerPullsLate: a round that finds ops the peer holds while
// this end follows does not pull them at once (they are most likely
// pushes in flight); the first tick after TickInterval pulls what is
// still missing, and nothing when the pushes came meanwhile.
func TestLink_FollowerPullsLate(t *testing.T) {
	for _, pushed := range []bool{false, true} {
		cfg := lssync.DefaultConfig("c1")
		la, lb := simnet.NewMemLog("rep_a", fixedWall), simnet.NewMemLog("rep_b", fixedWall)
		a, b := lssync.NewLink(cfg, la, true), lssync.NewLink(cfg, lb, false)
		b.Open(t0)
		pump(t, a, b, a.Open(t0), t0) // handshake and first round
		// A second round: b hears that a follows (a's first digest went out
		// before a was caught up).
		t1 := t0.Add(cfg.SyncInterval)
		out, err := a.Tick(t1)
		if err != nil {
			t.Fatal(err)
		}
		pump(t, a, b, out, t1)
		if !b.Status(nil).PeerFollows {
			t.Fatal("a does not follow b after two rounds")
		}
		e := lb.Append("in flight", false)

		now := t1.Add(cfg.SyncInterval)
		out, err = a.Tick(now)
		if err != nil {
			t.Fatal(err)
		}
		if bytes := pump(t, a, b, out, now); bytes["pull"] != 0 {
			t.Fatalf("the round pulled at once (%d pull bytes) while following", bytes["pull"])
		}
		if la.VersionVector()["rep_b"] != 0 {
			t.Fatal("the op arrived before any pull or push")
		}
		if pushed {
			push, err := b.Local(context.Background(), lb.Ops("rep_b"))
			if err != nil || len(push) != 1 {
				t.Fatalf("push frames %v, err %v", push, err)
			}
			pump(t, b, a, push, now)
		}
		out, err = a.Tick(now.Add(cfg.TickInterval))
		if err != nil {
			t.Fatal(err)
		}
		if pulled := hasPull(out); pulled == pushed {
			t.Fatalf("pushed %v: pull after the tick %v", pushed, pulled)
		}
		pump(t, a, b, out, now.Add(cfg.TickInterval))
		if got := la.VersionVector()["rep_b"]; got != e.OriginSeq {
			t.Fatalf("pushed %v: the follower holds rep_b up to %d, want %d", pushed, got, e.OriginSeq)
		}
	}
}

func hasPull(frames []*pb.Frame) bool {
	for _, f := range frames {
		if f.GetPull() != nil {
			return true
		}
	}
	return false
}

// TestLink_BridgesAPeerThatStartsToFollow: ops committed while the peer
// did not follow are never pushed; when it starts to follow, it is sent
// them at once (no pull), so the next push follows on from what it holds
// and is stored, not deferred.
func TestLink_BridgesAPeerThatStartsToFollow(t *testing.T) {
	ctx := context.Background()
	cfg := lssync.DefaultConfig("c1")
	la, lb := simnet.NewMemLog("rep_a", fixedWall), simnet.NewMemLog("rep_b", fixedWall)
	a, b := lssync.NewLink(cfg, la, true), lssync.NewLink(cfg, lb, false)
	b.Open(t0)
	pump(t, a, b, a.Open(t0), t0) // a's first digest went out before it was caught up
	if b.Status(nil).PeerFollows {
		t.Fatal("b already takes a for a follower")
	}
	lb.Append("missed 1", false)
	missed := lb.Append("missed 2", false)
	if push, err := b.Local(ctx, lb.Ops("rep_b")); err != nil || len(push) != 0 {
		t.Fatalf("pushed to a peer that does not follow: %v, %v", push, err)
	}

	t1 := t0.Add(cfg.SyncInterval)
	out, err := a.Tick(t1)
	if err != nil {
		t.Fatal(err)
	}
	bytes := pump(t, a, b, out, t1)
	if !b.Status(nil).PeerFollows {
		t.Fatal("a does not follow b after its second round")
	}
	if got := la.VersionVector()["rep_b"]; got != missed.OriginSeq || bytes["pull"] != 0 {
		t.Fatalf("a holds rep_b up to %d (want %d), %d pull bytes (want none)", got, missed.OriginSeq, bytes["pull"])
	}

	live := lb.Append("live", false)
	push, err := b.Local(ctx, lb.Ops("rep_b")[2:])
	if err != nil || len(push) != 1 {
		t.Fatalf("push frames %v, err %v", push, err)
	}
	pump(t, b, a, push, t1)
	if got := la.VersionVector()["rep_b"]; got != live.OriginSeq {
		t.Fatalf("the push after the bridge: a holds rep_b up to %d, want %d", got, live.OriginSeq)
	}
}
