package store

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

func TestIdempotency_RetryReturnsOriginal(t *testing.T) {
	s, wall := openTestStore(t)
	ctx := context.Background()
	in := AppendInput{Type: "task.request", Stream: "s", Room: "r", FromAgent: "a@1", ToAgent: "b@2", Status: "open",
		Body: "first", IdempotencyKey: "k1"}
	first, err := s.Append(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if first.Duplicate {
		t.Fatal("first write marked duplicate")
	}
	before := tableCounts(t, s)
	wall.Advance(3 * time.Second)
	in.Body = "retry with a different body"
	again, err := s.Append(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Duplicate || again.Event.ID != first.Event.ID || again.Event.Body != "first" || again.Event.HLC != first.Event.HLC {
		t.Fatalf("retry = %+v; want the original marked duplicate", again)
	}
	if after := tableCounts(t, s); !sameCounts(before, after) {
		t.Fatalf("a retry stored something: %v -> %v", before, after)
	}
	// The key is per writer: another agent's same key is a new write.
	in.FromAgent = "c@3"
	other, err := s.Append(ctx, in)
	if err != nil || other.Duplicate {
		t.Fatalf("another agent's key: %+v %v", other, err)
	}
	// And an ack retry.
	ack := AckInput{EventID: first.Event.ID, FromAgent: "b@2", Status: "applied", IdempotencyKey: "ack-1"}
	a1, err := s.Ack(ctx, ack)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := s.Ack(ctx, ack)
	if err != nil || !a2.Duplicate || a2.Event.ID != a1.Event.ID {
		t.Fatalf("ack retry = %+v %v", a2, err)
	}
	if _, err := s.Append(ctx, AppendInput{Type: "t", Stream: "s", Room: "r", FromAgent: "a", IdempotencyKey: "\x01"}); err == nil ||
		err.Error() != "idempotency_key contains control characters" {
		t.Errorf("bad key: %v", err)
	}
}

func TestIdempotency_ArtifactAndPatchRetries(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	in := ArtifactInput{Kind: "patch", Content: "no newline", CreatedBy: "a", IdempotencyKey: "art-1"}
	p1, err := s.PutArtifact(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	before := tableCounts(t, s)
	p2, err := s.PutArtifact(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !p2.Duplicate || p2.Artifact.ID != p1.Artifact.ID || len(p2.Artifact.Warnings) != 1 {
		t.Fatalf("artifact retry = %+v", p2.Artifact)
	}
	if after := tableCounts(t, s); !sameCounts(before, after) {
		t.Fatalf("artifact retry stored something: %v -> %v", before, after)
	}
	patch := PatchInput{Content: "diff\n", FromAgent: "a", Stream: "s", IdempotencyKey: "patch-1"}
	w1, err := s.PatchSubmit(ctx, patch)
	if err != nil {
		t.Fatal(err)
	}
	before = tableCounts(t, s)
	w2, err := s.PatchSubmit(ctx, patch)
	if err != nil {
		t.Fatal(err)
	}
	if !w2.Duplicate || w2.Event.ID != w1.Event.ID || w2.Artifact == nil || w2.Artifact.ID != w1.Artifact.ID {
		t.Fatalf("patch retry = %+v", w2)
	}
	if after := tableCounts(t, s); !sameCounts(before, after) {
		t.Fatalf("patch retry stored something (an orphan artifact?): %v -> %v", before, after)
	}
}

// TestIdempotency_ConcurrentAcrossReplicas: two replicas accept the same
// (from_agent, key) before they hear of each other. After exchanging ops
// both hold both events, agree on the canonical one (lowest (hlc,
// origin_replica)), and the other owes nothing.
func TestIdempotency_ConcurrentAcrossReplicas(t *testing.T) {
	for _, tc := range []struct {
		name     string
		aheadOfB time.Duration // A's wall clock minus B's
	}{
		{"A earlier", -time.Second},
		{"B earlier", time.Second},
		{"same millisecond", 0}, // tie on (ms, counter): origin_replica decides
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, wallA := openReplica(t, repA)
			b, _ := openReplica(t, repB)
			wallA.Advance(tc.aheadOfB)
			ctx := context.Background()
			in := AppendInput{Type: "task.request", Stream: "s", Room: "r", FromAgent: "boss", ToAgent: "worker",
				Status: "open", IdempotencyKey: "same-key"}
			wa, err := a.Append(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			wb, err := b.Append(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			want := wa.Event
			if wb.Event.HLC < wa.Event.HLC {
				want = wb.Event
			}
			exchange(t, a, b)
			exchange(t, b, a)
			if da, db := dump(t, a), dump(t, b); da != db {
				t.Fatalf("replicas differ:\n%s\n%s", da, db)
			}
			for _, s := range []*Store{a, b} {
				owed := owedIDs(t, s, "worker")
				if len(owed) != 1 || owed[0] != want.ID {
					t.Errorf("%s: owed = %v; want only the canonical %s", s.ReplicaID(), owed, want.ID)
				}
				retry, err := s.Append(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				if !retry.Duplicate || retry.Event.ID != want.ID {
					t.Errorf("%s: retry returned %s (dup %v); want canonical %s", s.ReplicaID(), retry.Event.ID, retry.Duplicate, want.ID)
				}
			}
		})
	}
}

// TestIdempotency_KeyTravelsInMetadata: the key rides in metadata under
// _lsnode, so it survives a relay that keeps only the hub's columns.
func TestIdempotency_KeyTravelsInMetadata(t *testing.T) {
	a, _ := openReplica(t, repA)
	ev := mustAppend(t, a, AppendInput{Type: "t", Stream: "s", Room: "r", FromAgent: "x", Metadata: json.RawMessage(`{"m":1}`), IdempotencyKey: "k"})
	client, ext, err := splitMetadata(ev.Metadata)
	if err != nil {
		t.Fatal(err)
	}
	if ext.Idem != "k" || len(client) != 1 {
		t.Fatalf("metadata %s: ext %+v client %v", ev.Metadata, ext, client)
	}
}
