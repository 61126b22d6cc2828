package integrity

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"testing"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/opsig"
)

// The reader verifies only ops the node does not hold yet: a copy of a
// held op (a relay of one that arrived directly) is left to the store.
func TestPreverify_SkipsHeldOps(t *testing.T) {
	const origin = "rep_0000000000aa"
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	in := &Integrity{workers: 1, pinned: map[string]ed25519.PublicKey{origin: key.Public().(ed25519.PublicKey)}}
	b := &pb.Batch{}
	for seq := int64(1); seq <= 3; seq++ {
		e := store.Event{ID: fmt.Sprintf("evt_%d", seq), OriginReplica: origin, OriginSeq: seq, Type: "note",
			Stream: "s", Room: "r", FromAgent: "a", Body: "b", Metadata: json.RawMessage("{}")}
		sig, err := opsig.Sign(key, e, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := lssync.OpToWire(store.Op{Event: e, PrevSeq: seq - 1})
		w.Signature = sig
		b.Ops = append(b.Ops, w)
	}
	keys := in.Preverify(b, map[string]int64{origin: 2})
	if len(keys) != 3 {
		t.Fatalf("verdict %v, want one key slot per op", keys)
	}
	for i, k := range keys {
		if checked := k != nil; checked != (i == 2) {
			t.Errorf("op %d (origin_seq %d): verified %v, want only the op not held", i, i+1, checked)
		}
	}
	if keys := in.Preverify(b, map[string]int64{origin: 3}); keys != nil {
		t.Errorf("every op held: verdict %v, want none", keys)
	}
}
