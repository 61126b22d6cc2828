package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// source makes a replica B with n notes and returns B and its ops.
func source(t *testing.T, n int) (*Store, []Op) {
	t.Helper()
	b, _ := openReplica(t, repB)
	for i := 0; i < n; i++ {
		mustAppend(t, b, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "b", ToAgent: "a", Body: strings.Repeat("x", i)})
	}
	return b, allOps(t, b)[repB]
}

func TestApply_Idempotent(t *testing.T) {
	_, ops := source(t, 5)
	a, _ := openReplica(t, repA)
	res := mustApply(t, a, Batch{Ops: ops})
	if res.Applied != 5 || res.Duplicates != 0 || res.Quarantined != 0 || res.Deferred != 0 {
		t.Fatalf("first apply: %s", fmtResult(res))
	}
	counts, snapshot, vv := tableCounts(t, a), dump(t, a), a.VersionVector()
	seq, _ := a.LatestSeq(context.Background())
	res = mustApply(t, a, Batch{Ops: ops})
	if res.Applied != 0 || res.Duplicates != 5 || res.Quarantined != 0 {
		t.Fatalf("second apply: %s", fmtResult(res))
	}
	seq2, _ := a.LatestSeq(context.Background())
	if !sameCounts(counts, tableCounts(t, a)) || dump(t, a) != snapshot || seq2 != seq || a.VersionVector()[repB] != vv[repB] {
		t.Fatal("applying the same batch twice changed something")
	}
	// A prefix replayed inside a longer batch is counted, the rest applied.
	res = mustApply(t, a, Batch{Ops: append(append([]Op{}, ops[:2]...), ops[:2]...)})
	if res.Duplicates != 4 || res.Applied != 0 {
		t.Fatalf("replayed prefix: %s", fmtResult(res))
	}
}

func TestApply_OwnEchoIsDuplicate(t *testing.T) {
	a, _ := openReplica(t, repA)
	mustAppend(t, a, note("a", "b"))
	ops := allOps(t, a)[repA]
	before := tableCounts(t, a)
	res := mustApply(t, a, Batch{Ops: ops})
	if res.Duplicates != 1 || res.Applied != 0 || !sameCounts(before, tableCounts(t, a)) {
		t.Fatalf("own echo: %s", fmtResult(res))
	}
}

func TestApply_ConflictAtHeldSlotQuarantined(t *testing.T) {
	_, ops := source(t, 3)
	a, _ := openReplica(t, repA)
	mustApply(t, a, Batch{Ops: ops})
	before := dump(t, a)
	forged := ops[1]
	forged.Event.Body = "rewritten history"
	res := mustApply(t, a, Batch{Ops: []Op{forged}})
	if res.Quarantined != 1 || res.Applied != 0 || res.Duplicates != 0 {
		t.Fatalf("conflict: %s", fmtResult(res))
	}
	if dump(t, a) != before {
		t.Fatal("a conflicting op overwrote the held one")
	}
	q, err := a.Quarantine(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].Reason != "conflict" || q[0].OriginReplica != repB || q[0].OriginSeq != 2 || q[0].ItemID != ops[1].Event.ID ||
		!strings.Contains(q[0].Detail, ops[1].Event.ID) || !strings.Contains(string(q[0].Payload), "rewritten history") {
		t.Fatalf("quarantine = %+v", q)
	}
	// The same id at another slot is a conflict too.
	moved := ops[0]
	moved.Event.OriginSeq, moved.PrevSeq = 4, 3
	res = mustApply(t, a, Batch{Ops: []Op{moved}})
	if res.Quarantined != 1 {
		t.Fatalf("same id at another slot: %s", fmtResult(res))
	}
	q, _ = a.Quarantine(context.Background(), 10)
	if q[0].Reason != "conflict" || !strings.Contains(q[0].Detail, "already held at another origin slot") {
		t.Fatalf("quarantine = %+v", q[0])
	}
	// Also when it names an artifact this replica lacks: it is refused at
	// once, not deferred while waiting for an artifact, and its slot moves.
	withArt := ops[0]
	withArt.Event.OriginSeq, withArt.PrevSeq = 5, 4
	withArt.Event.ArtifactIDs = []string{"art_20260101T000000_000000000000"}
	res = mustApply(t, a, Batch{Ops: []Op{withArt}})
	if res.Quarantined != 1 || res.Deferred != 0 || len(res.Missing) != 0 || a.VersionVector()[repB] != 5 {
		t.Fatalf("same id at another slot, naming a missing artifact: %s, vv %v", fmtResult(res), a.VersionVector())
	}
	// Metadata re-serialised by a relay is the same op, not a conflict.
	relayed := ops[2]
	relayed.Event.Metadata = []byte(` { }`)
	if res := mustApply(t, a, Batch{Ops: []Op{relayed}}); res.Duplicates != 1 {
		t.Fatalf("re-serialised metadata: %s", fmtResult(res))
	}
}

func TestApply_InvalidOpQuarantinedWithoutWedging(t *testing.T) {
	_, ops := source(t, 4)
	a, _ := openReplica(t, repA)
	bad := ops[1]
	bad.Event.Type = "Not A Type"
	batch := []Op{ops[0], bad, ops[2], ops[3]}
	res := mustApply(t, a, Batch{Ops: batch})
	if res.Applied != 3 || res.Quarantined != 1 || res.Deferred != 0 {
		t.Fatalf("apply: %s", fmtResult(res))
	}
	q, err := a.Quarantine(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 1 || q[0].Reason != "invalid" || q[0].Detail != "type='Not A Type' is not a valid event type (lowercase letters, digits, '.', '_', '-'; max 64 chars)" {
		t.Fatalf("quarantine = %+v", q)
	}
	if a.VersionVector()[repB] != 4 {
		t.Fatalf("vv = %v; the origin is wedged", a.VersionVector())
	}
	// Offered again (a peer re-sending the range), nothing changes.
	before := tableCounts(t, a)
	res = mustApply(t, a, Batch{Ops: batch})
	if res.Duplicates != 4 || !sameCounts(before, tableCounts(t, a)) {
		t.Fatalf("re-offer: %s counts %v -> %v", fmtResult(res), before, tableCounts(t, a))
	}
	// The consumed slot survives a restart.
	dir := a.cfg.Dir
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a2 := openReplicaAt(t, dir, repA, hlc.NewManualClock(testClockStart))
	if a2.VersionVector()[repB] != 4 {
		t.Fatalf("vv after reopen = %v", a2.VersionVector())
	}
}

func TestApply_InvalidFieldsEachQuarantined(t *testing.T) {
	_, ops := source(t, 1)
	base := ops[0]
	cases := []struct {
		name   string
		mod    func(e *Event)
		detail string
	}{
		{"missing id", func(e *Event) { e.ID = "" }, "remote event is missing required field 'id'"},
		{"missing hlc", func(e *Event) { e.HLC = "" }, "remote event is missing required field 'hlc'"},
		{"bad hlc", func(e *Event) { e.HLC = "yesterday" }, "not a valid HLC string: 'yesterday'"},
		{"bad created_at", func(e *Event) { e.CreatedAt = "2026-13-01T00:00:00Z" }, "created_at='2026-13-01T00:00:00Z' is not a valid UTC timestamp (expected YYYY-MM-DDTHH:MM:SSZ)"},
		{"bad status", func(e *Event) { e.Status = "done" }, "status='done' is not one of: applied, blocked, claimed, failed, open, ready, superseded"},
		{"body NUL", func(e *Event) { e.Body = "\x00" }, "body contains null bytes"},
		{"routing control", func(e *Event) { e.Room = "a\x01" }, "room contains control characters"},
		{"metadata not object", func(e *Event) { e.Metadata = []byte(`[]`) }, "metadata must be an object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := openReplica(t, repA)
			op := base
			tc.mod(&op.Event)
			res := mustApply(t, a, Batch{Ops: []Op{op}})
			if res.Quarantined != 1 || res.Applied != 0 {
				t.Fatalf("apply: %s", fmtResult(res))
			}
			q, _ := a.Quarantine(context.Background(), 1)
			if q[0].Reason != "invalid" || q[0].Detail != tc.detail {
				t.Fatalf("quarantine reason %q detail %q; want %q", q[0].Reason, q[0].Detail, tc.detail)
			}
			if c := tableCounts(t, a); c["events"] != 0 {
				t.Fatal("an invalid op was stored")
			}
		})
	}
}

// TestApply_UnusableSlotNotAdvanced: an op whose origin or origin_seq
// cannot name a slot is quarantined without touching the version vector
// (it would otherwise gain an invalid origin or move backwards).
func TestApply_UnusableSlotNotAdvanced(t *testing.T) {
	_, ops := source(t, 2)
	a, _ := openReplica(t, repA)
	mustApply(t, a, Batch{Ops: ops})
	cases := []struct {
		name string
		mod  func(op *Op)
	}{
		{"origin_seq zero", func(op *Op) { op.Event.OriginSeq, op.PrevSeq = 0, 2 }},
		{"origin_seq negative", func(op *Op) { op.Event.OriginSeq, op.PrevSeq = -5, 2 }},
		{"origin not a replica id", func(op *Op) { op.Event.OriginReplica, op.Event.OriginSeq, op.PrevSeq = "bogus", 1, 0 }},
		{"origin empty", func(op *Op) { op.Event.OriginReplica, op.Event.OriginSeq, op.PrevSeq = "", 1, 0 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			op := ops[0]
			op.Event.ID = "evt_20260101T000000_" + hex.EncodeToString([]byte(tc.name))[:12]
			tc.mod(&op)
			res := mustApply(t, a, Batch{Ops: []Op{op}})
			if res.Quarantined != 1 || res.Applied != 0 {
				t.Fatalf("apply: %s", fmtResult(res))
			}
			before := tableCounts(t, a)
			if again := mustApply(t, a, Batch{Ops: []Op{op}}); again.Duplicates != 1 || !sameCounts(before, tableCounts(t, a)) {
				t.Fatalf("offered again: %s; counts %v -> %v", fmtResult(again), before, tableCounts(t, a))
			}
			vv := a.VersionVector()
			if len(vv) != 1 || vv[repB] != 2 {
				t.Fatalf("vv = %v; want only %s: 2", vv, repB)
			}
			if _, err := DecodeCursor(EncodeCursor(vv)); err != nil {
				t.Fatal(err)
			}
			res2, err := a.List(context.Background(), Filter{Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeCursor(res2.Cursor); err != nil {
				t.Fatalf("a cursor issued after the quarantine does not decode: %v", err)
			}
		})
	}
	dir := a.cfg.Dir
	a.Close()
	a2 := openReplicaAt(t, dir, repA, hlc.NewManualClock(testClockStart))
	if vv := a2.VersionVector(); len(vv) != 1 || vv[repB] != 2 {
		t.Fatalf("vv after reopen = %v", vv)
	}
}

func TestApply_HoleDeferred(t *testing.T) {
	_, ops := source(t, 4)
	a, _ := openReplica(t, repA)
	res := mustApply(t, a, Batch{Ops: []Op{ops[2], ops[3]}})
	if res.Deferred != 2 || res.Applied != 0 || len(a.VersionVector()) != 0 {
		t.Fatalf("ops past a hole: %s vv %v", fmtResult(res), a.VersionVector())
	}
	if c := tableCounts(t, a); c["events"] != 0 || c["lsnode_quarantine"] != 0 {
		t.Fatalf("deferred ops stored: %v", c)
	}
	// Out of order inside one batch: the later op is deferred, the earlier
	// applied; offering the rest again completes the prefix.
	res = mustApply(t, a, Batch{Ops: []Op{ops[1], ops[0]}})
	if res.Applied != 1 || res.Deferred != 1 || a.VersionVector()[repB] != 1 {
		t.Fatalf("out of order: %s vv %v", fmtResult(res), a.VersionVector())
	}
	res = mustApply(t, a, Batch{Ops: ops[1:]})
	if res.Applied != 3 || a.VersionVector()[repB] != 4 {
		t.Fatalf("completion: %s", fmtResult(res))
	}
	// A gapped legacy origin (Python numbering) chains through PrevSeq.
	gapped := []Op{ops[0], ops[1]}
	for i := range gapped {
		gapped[i].Event.OriginReplica = repC
		gapped[i].Event.ID = "evt_20260101T000000_00000000000" + string(rune('a'+i))
	}
	gapped[0].Event.OriginSeq, gapped[0].PrevSeq = 3, 0
	gapped[1].Event.OriginSeq, gapped[1].PrevSeq = 7, 3
	res = mustApply(t, a, Batch{Ops: gapped})
	if res.Applied != 2 || a.VersionVector()[repC] != 7 {
		t.Fatalf("gapped origin: %s vv %v", fmtResult(res), a.VersionVector())
	}
}

func TestApply_ArtifactsBeforeEvents(t *testing.T) {
	b, _ := openReplica(t, repB)
	ctx := context.Background()
	w, err := b.PatchSubmit(ctx, PatchInput{Content: "diff\n", FromAgent: "b", Stream: "s", ToAgent: "a"})
	if err != nil {
		t.Fatal(err)
	}
	ops := allOps(t, b)[repB]
	art := *w.Artifact
	art.Warnings = nil
	a, _ := openReplica(t, repA)

	res := mustApply(t, a, Batch{Ops: ops})
	if res.Deferred != 1 || res.Applied != 0 || len(res.Missing) != 1 || res.Missing[0] != art.ID {
		t.Fatalf("event before its artifact: %s", fmtResult(res))
	}
	if len(a.VersionVector()) != 0 {
		t.Fatal("deferred event advanced the vector")
	}
	missing, err := a.MissingArtifacts(ctx, res.Missing)
	if err != nil || len(missing) != 1 {
		t.Fatalf("MissingArtifacts = %v %v", missing, err)
	}
	res = mustApply(t, a, Batch{Artifacts: []Artifact{art}, Ops: ops})
	if res.Artifacts != 1 || res.Applied != 1 || len(res.Missing) != 0 {
		t.Fatalf("artifact and event in one batch: %s", fmtResult(res))
	}
	got, err := a.GetArtifact(ctx, art.ID)
	if err != nil || got.Content != "diff\n" || got.OriginReplica != repB {
		t.Fatalf("artifact = %+v %v", got, err)
	}
	// Idempotent for artifacts too.
	res = mustApply(t, a, Batch{Artifacts: []Artifact{art}})
	if res.Artifacts != 0 || res.Quarantined != 0 {
		t.Fatalf("artifact again: %s", fmtResult(res))
	}
	if dump(t, a) != dump(t, b) {
		t.Fatal("replicas differ")
	}
}

func TestApply_ArtifactHashMismatchQuarantined(t *testing.T) {
	a, _ := openReplica(t, repA)
	content := "payload"
	sum := sha256.Sum256([]byte("something else"))
	art := Artifact{ID: "art_20260101T000000_aaaaaaaaaaaa", Kind: "note", SHA256: hex.EncodeToString(sum[:]), Content: content,
		CreatedBy: "b", CreatedAt: "2026-01-01T00:00:00Z", OriginReplica: repB}
	res := mustApply(t, a, Batch{Artifacts: []Artifact{art}})
	if res.Artifacts != 0 || res.Quarantined != 1 {
		t.Fatalf("apply: %s", fmtResult(res))
	}
	real := sha256.Sum256([]byte(content))
	q, _ := a.Quarantine(context.Background(), 1)
	want := "remote artifact 'art_20260101T000000_aaaaaaaaaaaa' failed hash verification (claimed " + art.SHA256[:16] +
		"..., computed " + hex.EncodeToString(real[:])[:16] + "...)"
	if q[0].Reason != "artifact_invalid" || q[0].Detail != want {
		t.Fatalf("quarantine %q %q; want %q", q[0].Reason, q[0].Detail, want)
	}
	if missing, _ := a.MissingArtifacts(context.Background(), []string{art.ID}); len(missing) != 1 {
		t.Fatal("a hash-mismatched artifact was stored")
	}
	// A held artifact offered with different content is a conflict.
	art.SHA256 = hex.EncodeToString(real[:])
	mustApply(t, a, Batch{Artifacts: []Artifact{art}})
	other := art
	other.Content = "other"
	os := sha256.Sum256([]byte("other"))
	other.SHA256 = hex.EncodeToString(os[:])
	res = mustApply(t, a, Batch{Artifacts: []Artifact{other}})
	if res.Quarantined != 1 {
		t.Fatalf("artifact conflict: %s", fmtResult(res))
	}
	got, _ := a.GetArtifact(context.Background(), art.ID)
	if got.Content != content {
		t.Fatal("artifact overwritten")
	}
	q, _ = a.Quarantine(context.Background(), 1)
	if q[0].Reason != "artifact_conflict" {
		t.Fatalf("reason %q", q[0].Reason)
	}
}

func TestApply_RemoteHLCObserved(t *testing.T) {
	b, wallB := openReplica(t, repB)
	a, _ := openReplica(t, repA)
	wallB.Advance(300 * time.Millisecond) // ahead, within the 500 ms bound
	for i := 0; i < 3; i++ {
		mustAppend(t, b, note("b", "a"))
	}
	ops := allOps(t, b)[repB]
	res := mustApply(t, a, Batch{Ops: ops})
	if res.Applied != 3 || len(res.SkewedOrigins) != 0 {
		t.Fatalf("apply: %s skew %v", fmtResult(res), res.SkewedOrigins)
	}
	mine := mustAppend(t, a, note("a", "b"))
	lt, _ := hlc.Parse(mine.HLC)
	rt, _ := hlc.Parse(ops[2].Event.HLC)
	if lt.Compare(rt) <= 0 {
		t.Fatalf("local stamp %s not after observed %s", mine.HLC, ops[2].Event.HLC)
	}
}

func TestApply_SkewBeyondBoundStoredNotAdopted(t *testing.T) {
	b, wallB := openReplica(t, repB)
	a, _ := openReplica(t, repA)
	wallB.Advance(time.Hour)
	far := mustAppend(t, b, note("b", "a"))
	res := mustApply(t, a, Batch{Ops: allOps(t, b)[repB]})
	if res.Applied != 1 {
		t.Fatalf("a skewed op must still be stored: %s", fmtResult(res))
	}
	if off := res.SkewedOrigins[repB]; off < (time.Hour - time.Second).Milliseconds() {
		t.Fatalf("SkewedOrigins = %v", res.SkewedOrigins)
	}
	mine := mustAppend(t, a, note("a", "b"))
	lt, _ := hlc.Parse(mine.HLC)
	if lt.WallMS != testClockStart.UnixMilli() {
		t.Fatalf("clock dragged to %s by %s", mine.HLC, far.HLC)
	}
	if got, err := a.eventByID(context.Background(), far.ID); err != nil || got.HLC != far.HLC {
		t.Fatalf("skewed op not stored verbatim: %+v %v", got, err)
	}
}

// TestApply_RefusedArtifactAgainAddsNothing: an event naming a refused
// artifact stays deferred, so its peer offers the artifact again on every
// round. The same refusal again is recorded once, as the same refused op
// is (applying a batch twice changes nothing).
func TestApply_RefusedArtifactAgainAddsNothing(t *testing.T) {
	a, _ := openReplica(t, repA)
	good := Artifact{ID: "art_20260101T000000_bbbbbbbbbbbb", Kind: "note", Content: "held", CreatedBy: "b",
		CreatedAt: "2026-01-01T00:00:00Z", OriginReplica: repB}
	sum := sha256.Sum256([]byte(good.Content))
	good.SHA256 = hex.EncodeToString(sum[:])
	mustApply(t, a, Batch{Artifacts: []Artifact{good}})
	conflict := good
	conflict.Content = "other"
	sum = sha256.Sum256([]byte(conflict.Content))
	conflict.SHA256 = hex.EncodeToString(sum[:])
	mismatch := Artifact{ID: "art_20260101T000000_aaaaaaaaaaaa", Kind: "note", SHA256: good.SHA256, Content: "payload",
		CreatedBy: "b", CreatedAt: "2026-01-01T00:00:00Z", OriginReplica: repB}
	b := Batch{Artifacts: []Artifact{mismatch, conflict}}
	if res := mustApply(t, a, b); res.Quarantined != 2 {
		t.Fatalf("first offer: %s", fmtResult(res))
	}
	before := tableCounts(t, a)
	for range 3 {
		if res := mustApply(t, a, b); res.Quarantined != 0 || res.Artifacts != 0 {
			t.Fatalf("offered again: %s", fmtResult(res))
		}
	}
	if after := tableCounts(t, a); !sameCounts(before, after) {
		t.Fatalf("the same refusals again stored rows: %v, then %v", before, after)
	}
}

// TestApply_ConflictAgainAddsNothing: applying a batch twice changes
// nothing, also when it holds an op that conflicts with a held one: the
// conflict is recorded once, and counts as a duplicate after that.
func TestApply_ConflictAgainAddsNothing(t *testing.T) {
	_, ops := source(t, 2)
	a, _ := openReplica(t, repA)
	mustApply(t, a, Batch{Ops: ops})
	forged := ops[1]
	forged.Event.Body = "rewritten history"
	b := Batch{Ops: []Op{forged}}
	if res := mustApply(t, a, b); res.Quarantined != 1 {
		t.Fatalf("first offer: %s", fmtResult(res))
	}
	before := tableCounts(t, a)
	if res := mustApply(t, a, b); res.Quarantined != 0 || res.Duplicates != 1 {
		t.Fatalf("offered again: %s", fmtResult(res))
	}
	if after := tableCounts(t, a); !sameCounts(before, after) {
		t.Fatalf("the same conflict again stored rows: %v, then %v", before, after)
	}
}

// TestApply_IllFormedExtensionIgnored: a Python hub stores whatever
// metadata its clients send, "_lsnode" included. An op whose "_lsnode" is
// not lsnode's extension is stored like any other, without context or
// key, and its client metadata (ack_of) counts: refusing it would leave
// lsnode nodes without an event every Python hub holds, and a node that
// opened such a hub's file in place reads it the same way.
func TestApply_IllFormedExtensionIgnored(t *testing.T) {
	b, _ := openReplica(t, repB)
	task := mustAppend(t, b, AppendInput{Type: "task.request", Stream: "s", Room: "r", FromAgent: "x", ToAgent: "y", Status: "open"})
	if _, err := b.Ack(context.Background(), AckInput{EventID: task.ID, FromAgent: "y", Status: "applied"}); err != nil {
		t.Fatal(err)
	}
	ops := allOps(t, b)[repB]
	ops[1].Event.Metadata = []byte(`{"_lsnode": "set by a client", "ack_of": "` + task.ID + `"}`)
	a, _ := openReplica(t, repA)
	res := mustApply(t, a, Batch{Ops: ops})
	if res.Applied != 2 || res.Quarantined != 0 {
		t.Fatalf("apply: %s", fmtResult(res))
	}
	if owed := owedIDs(t, a, "y"); len(owed) != 0 {
		t.Fatalf("y still owes %v after acking it", owed)
	}
	if p := partsOf([]byte(`{"_lsnode": [1], "ack_of": "evt_1"}`)); p.ackOf != "evt_1" || !p.ext.empty() {
		t.Fatalf("partsOf with an ill-formed extension = %+v", p)
	}
}
