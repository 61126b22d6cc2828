package integrity

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/opsig"
)

// verifyOp keeps one verifier per origin and key, and decides as
// opsig.Verify: a genuine op passes, an altered one and one checked
// against another key fail with ErrBadSignature.
func TestVerifyOp_SameVerdictAsVerify(t *testing.T) {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := key.Public().(ed25519.PublicKey)
	other := ed25519.NewKeyFromSeed(append(make([]byte, ed25519.SeedSize-1), 1)).Public().(ed25519.PublicKey)
	const origin = "rep_0000000000aa"
	e := store.Event{ID: "evt_1", OriginReplica: origin, OriginSeq: 1, Type: "note", Stream: "s", Room: "r",
		FromAgent: "a", Body: "b", Metadata: json.RawMessage("{}")}
	sig, err := opsig.Sign(key, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	altered := e
	altered.Body = "c"
	var in Integrity
	cases := []struct {
		name string
		pub  ed25519.PublicKey
		e    store.Event
		ok   bool
	}{
		{"genuine", pub, e, true},
		{"altered body", pub, altered, false},
		{"another key", other, e, false},
		{"the first key again", pub, e, true},
		{"not a point", ed25519.PublicKey(append([]byte{2}, make([]byte, 31)...)), e, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := in.verifyOp(origin, c.pub, c.e, nil, sig)
			want := opsig.Verify(c.pub, c.e, nil, sig)
			if (err == nil) != c.ok || fmt.Sprint(err) != fmt.Sprint(want) {
				t.Fatalf("verifyOp = %v, opsig.Verify = %v, want ok=%v", err, want, c.ok)
			}
			if !c.ok && !errors.Is(err, opsig.ErrBadSignature) {
				t.Fatalf("verifyOp = %v, want ErrBadSignature", err)
			}
			if v := in.vs.get(origin, c.pub); v != nil && !v.PublicKey().Equal(c.pub) {
				t.Fatal("the kept verifier holds another key")
			}
		})
	}
}

// The set of verifiers stays bounded: past maxVerifiers origins it
// starts over.
func TestVerifiers_Bounded(t *testing.T) {
	pub := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	var vs verifiers
	first := vs.get("rep_000000000000", pub)
	if first == nil || vs.get("rep_000000000000", pub) != first {
		t.Fatal("a second lookup built the verifier again")
	}
	for i := 1; i <= maxVerifiers; i++ {
		vs.get(fmt.Sprintf("rep_%012d", i), pub)
		if len(vs.m) > maxVerifiers {
			t.Fatalf("%d verifiers kept, bound %d", len(vs.m), maxVerifiers)
		}
	}
	if len(vs.m) != 1 {
		t.Fatalf("after %d origins, %d verifiers kept, want 1 (the set started over)", maxVerifiers+1, len(vs.m))
	}
}
