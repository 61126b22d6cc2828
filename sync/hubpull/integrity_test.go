package hubpull_test

import (
	"context"
	"crypto/ed25519"
	"testing"

	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/fakehub"
	"github.com/lsnode/lsnode/sync/hubpull"
	"github.com/lsnode/lsnode/sync/integrity"
)

// TestHTTPPull_Integrity: ops pulled from a Python hub carry no signature.
// An lsnode origin whose key is pinned, relayed by the hub, is refused
// (quarantined as unsigned, its slot kept: it comes signed over gRPC);
// the hub's own ops are applied under accept and refused under refuse.
func TestHTTPPull_Integrity(t *testing.T) {
	for _, policy := range []integrity.UnsignedPolicy{integrity.UnsignedAccept, integrity.UnsignedRefuse} {
		t.Run(policy.String(), func(t *testing.T) {
			signer := seedKey(1) // the lsnode origin's, pinned below
			h := startHub(t, fakehub.Config{Seed: 21})
			h.note(t, "the hub's own")
			h.remote(t, repX, 1, "note", nil)
			h.remote(t, repX, 2, "note", nil)
			e := newPullEnv(t, func(cfg *hubpull.Config) {
				keys, err := store.Open(context.Background(), store.Config{Dir: t.TempDir(), ReplicaID: repY})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { keys.Close() })
				in, err := integrity.New(context.Background(), integrity.Config{
					Self: repY, Key: seedKey(2), Policy: policy, Keys: keys,
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := in.Learn(context.Background(), repX, signer.Public().(ed25519.PublicKey), repX); err != nil {
					t.Fatal(err)
				}
				cfg.Integrity = in
			})
			e.setPeers(peerEntry{URL: h.srv.URL})
			e.round()
			e.round() // the same refusals again add nothing
			vv := e.st.VersionVector()
			if vv[repX] != 0 {
				t.Errorf("the pinned origin's unsigned ops were applied: %v", vv)
			}
			wantHub := int64(1)
			if policy == integrity.UnsignedRefuse {
				wantHub = 0
			}
			if vv[h.ReplicaID()] != wantHub {
				t.Errorf("hub origin top %d, want %d", vv[h.ReplicaID()], wantHub)
			}
			q, err := e.st.Quarantine(context.Background(), 10)
			if err != nil {
				t.Fatal(err)
			}
			reasons := map[string]int{}
			for _, x := range q {
				if x.Reason != store.ReasonUnsigned {
					t.Errorf("quarantined for %s: %s", x.Reason, x.Detail)
				}
				reasons[x.OriginReplica]++
			}
			// One row per refused head op: the next op of that origin waits.
			if reasons[repX] != 1 || reasons[h.ReplicaID()] != int(1-wantHub) {
				t.Errorf("quarantine by origin %v", reasons)
			}
		})
	}
}

// Two lsnode origins: one whose ops a hub relays, and the puller's own.
const (
	repX = "rep_111111111111111111111111111111aa"
	repY = "rep_222222222222222222222222222222bb"
)

// seedKey is a fixed ed25519 key per b.
func seedKey(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(append(make([]byte, ed25519.SeedSize-1), b))
}
