package lssync_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"testing"

	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/integrity"
)

// nodeKey is a fixed key per node name, so a seed replays exactly.
func nodeKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("sim key " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// TestSimulation_StoresSigned runs the store simulation with origin
// integrity on every node (unsigned origins refused, so every applied op
// was verified): it must converge with nothing quarantined, and every op a
// node holds of another origin must carry that origin's signature (kept
// and relayed).
func TestSimulation_StoresSigned(t *testing.T) {
	seeds := []uint64{1, 2, 3, 42}
	if *simSeed != 0 {
		seeds = []uint64{*simSeed}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			var made []*integrity.Integrity
			newIntegrity := func(name string, log lssync.Log) (lssync.Integrity, error) {
				in, err := integrity.New(context.Background(), integrity.Config{
					Self: name, Key: nodeKey(name), Policy: integrity.UnsignedRefuse, Keys: log.(storeLog).st,
				})
				made = append(made, in)
				return in, err
			}
			sc := newScenarioWith(seed, storeLogs(t, t.TempDir(), seed), newIntegrity)
			sc.reopen = true
			sc.steps = 150
			replay := fmt.Sprintf("seed %d (replay: go test ./sync -run TestSimulation_StoresSigned -sim.seed=%d)", seed, seed)
			if err := sc.run(); err != nil {
				t.Fatalf("%s: %v", replay, err)
			}
			if err := sc.verify(); err != nil {
				t.Fatalf("%s: %v", replay, err)
			}
			var verified, refused int64
			for _, in := range made {
				c := in.Counts()
				verified += c.Verified
				refused += c.Refused + c.KeyConflicts
			}
			if verified == 0 || refused != 0 {
				t.Fatalf("%s: %d ops verified, %d refused or conflicting; want some and none", replay, verified, refused)
			}
			for _, name := range sc.names {
				for _, origin := range sc.names {
					if origin == name {
						continue
					}
					ops, err := sc.logs[name].opsOf(origin)
					if err != nil {
						t.Fatal(err)
					}
					for _, op := range ops {
						if len(op.Signature) != ed25519.SignatureSize {
							t.Fatalf("%s: %s holds %s/%d without its signature", replay, name, origin, op.Event.OriginSeq)
						}
					}
				}
			}
			t.Logf("%s; %d ops verified", sc.summary(), verified)
		})
	}
}
