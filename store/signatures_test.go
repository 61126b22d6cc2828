package store

import (
	"bytes"
	"context"
	"testing"
)

func sigOf(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 64) }

// TestSignatures_StoredWithOpsAndServed: signatures arrive with the ops,
// are written with them, come back from OpsAfter (relays pass them on),
// and survive a reopen. An op without one stays without one.
func TestSignatures_StoredWithOpsAndServed(t *testing.T) {
	_, ops := source(t, 4)
	dir := t.TempDir()
	a := openReplicaAt(t, dir, repA, nil)
	for i := range ops {
		if i != 2 {
			ops[i].Signature = sigOf(i + 1)
		}
	}
	if res := mustApply(t, a, Batch{Ops: ops}); res.Applied != 4 {
		t.Fatalf("apply: %s", fmtResult(res))
	}
	check := func(s *Store) {
		t.Helper()
		got, err := s.OpsAfter(context.Background(), repB, 0, 500, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 4 {
			t.Fatalf("OpsAfter returned %d ops", len(got))
		}
		for i, op := range got {
			if !bytes.Equal(op.Signature, ops[i].Signature) {
				t.Errorf("op %d: signature %x, want %x", i, op.Signature, ops[i].Signature)
			}
		}
		// A page that starts mid-range gets its own ops' signatures.
		page, err := s.OpsAfter(context.Background(), repB, 1, 1, 0)
		if err != nil || len(page) != 1 || !bytes.Equal(page[0].Signature, sigOf(2)) {
			t.Errorf("page after 1: %v %+v", err, page)
		}
	}
	check(a)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	check(openReplicaAt(t, dir, repA, nil))
}

// TestSignatures_OnlyWithTheEvent: a deferred op's signature is not kept
// (it is written in the apply's transaction, with the event, or not at
// all), and the pushed copy of an applied op carries its signature.
func TestSignatures_OnlyWithTheEvent(t *testing.T) {
	_, ops := source(t, 3)
	a, _ := openReplica(t, repA)
	sub := a.Subscribe(16)
	defer sub.Close()
	ops[2].Signature = sigOf(9)
	if res := mustApply(t, a, Batch{Ops: []Op{ops[2]}}); res.Deferred != 1 || res.Applied != 0 {
		t.Fatalf("hole: %s", fmtResult(res))
	}
	var n int
	if err := a.readDB.QueryRow(`SELECT count(*) FROM lsnode_op_signatures`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("signature rows after a deferred op: %d (%v)", n, err)
	}
	ops[0].Signature = sigOf(7)
	mustApply(t, a, Batch{Ops: ops[:1]})
	got := <-sub.C()
	if len(got) != 1 || !bytes.Equal(got[0].Signature, sigOf(7)) {
		t.Fatalf("pushed copy: %+v", got)
	}
}

// TestSignatures_RefusalKeepsTheSlot: an op the integrity check refused is
// quarantined without consuming its slot; the ops after it wait; the same
// refusal again adds nothing; the genuine op then applies in that slot.
func TestSignatures_RefusalKeepsTheSlot(t *testing.T) {
	_, ops := source(t, 3)
	a, _ := openReplica(t, repA)
	mustApply(t, a, Batch{Ops: ops[:1]})
	forged := ops[1]
	forged.Event.Body = "forged"
	forged.Refusal = &Refusal{Reason: ReasonSignature, Detail: "op signature does not verify"}
	batch := Batch{Ops: []Op{forged, ops[2]}}
	res := mustApply(t, a, batch)
	if res.Quarantined != 1 || res.Deferred != 1 || res.Applied != 0 {
		t.Fatalf("forged batch: %s", fmtResult(res))
	}
	if top := a.VersionVector()[repB]; top != 1 {
		t.Fatalf("top after a refused op = %d, want 1 (slot kept free)", top)
	}
	q, err := a.Quarantine(context.Background(), 10)
	if err != nil || len(q) != 1 || q[0].Reason != ReasonSignature || q[0].OriginSeq != 2 {
		t.Fatalf("quarantine: %v %+v", err, q)
	}
	before := tableCounts(t, a)
	res = mustApply(t, a, batch)
	if res.Quarantined != 0 || res.Duplicates != 1 || res.Deferred != 1 || !sameCounts(before, tableCounts(t, a)) {
		t.Fatalf("same forged batch again: %s", fmtResult(res))
	}
	res = mustApply(t, a, Batch{Ops: ops[1:]})
	if res.Applied != 2 || a.VersionVector()[repB] != 3 {
		t.Fatalf("genuine ops: %s, top %d", fmtResult(res), a.VersionVector()[repB])
	}
	held := allOps(t, a)[repB]
	if held[1].Event.Body == "forged" {
		t.Fatal("the forged body was stored")
	}
	// A refusal at a slot already held is just a duplicate (or a
	// conflict, as any different op there): nothing is quarantined as
	// a signature failure.
	again := ops[1]
	again.Refusal = &Refusal{Reason: ReasonUnsigned, Detail: "x"}
	if res := mustApply(t, a, Batch{Ops: []Op{again}}); res.Duplicates != 1 || res.Quarantined != 0 {
		t.Fatalf("refusal at a held slot: %s", fmtResult(res))
	}
}

// TestOriginKeys_PinnedOnFirstUse: the first key seen for an origin is
// pinned and survives a reopen; a different key later does not replace it.
func TestOriginKeys_PinnedOnFirstUse(t *testing.T) {
	dir := t.TempDir()
	a := openReplicaAt(t, dir, repA, nil)
	ctx := context.Background()
	k1, k2 := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	pinned, err := a.PinOriginKey(ctx, repB, k1, repC)
	if err != nil || !bytes.Equal(pinned, k1) {
		t.Fatalf("first pin: %x %v", pinned, err)
	}
	pinned, err = a.PinOriginKey(ctx, repB, k2, repD)
	if err != nil || !bytes.Equal(pinned, k1) {
		t.Fatalf("second pin returned %x (%v), want the first key", pinned, err)
	}
	if _, err := a.PinOriginKey(ctx, "not-a-replica", k1, repC); err == nil {
		t.Error("a bad origin id was pinned")
	}
	if _, err := a.PinOriginKey(ctx, repC, nil, repC); err == nil {
		t.Error("an empty key was pinned")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a = openReplicaAt(t, dir, repA, nil)
	keys, err := a.OriginKeys(ctx)
	if err != nil || len(keys) != 1 || !bytes.Equal(keys[repB], k1) {
		t.Fatalf("after reopen: %v %x", err, keys)
	}
}

func TestArtifactDigests(t *testing.T) {
	a, _ := openReplica(t, repA)
	w, err := a.PutArtifact(context.Background(), ArtifactInput{Kind: "note", Content: "hello", CreatedBy: "a"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.ArtifactDigests(context.Background(), []string{w.Artifact.ID, "art_absent"})
	if err != nil || len(got) != 1 || got[w.Artifact.ID] != w.Artifact.SHA256 {
		t.Fatalf("digests: %v %v", got, err)
	}
}
