package integrity_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/integrity"
)

// TestIntegrity_OwnKeyChanged: a data dir that pinned a key for its own
// origin refuses to start with another node.key.
func TestIntegrity_OwnKeyChanged(t *testing.T) {
	const self = "rep_111111111111111111111111111111aa"
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Dir: t.TempDir(), ReplicaID: self})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	key := func(b byte) ed25519.PrivateKey {
		return ed25519.NewKeyFromSeed(append(make([]byte, ed25519.SeedSize-1), b))
	}
	if _, err := integrity.New(ctx, integrity.Config{Self: self, Key: key(1), Keys: st}); err != nil {
		t.Fatal(err)
	}
	_, err = integrity.New(ctx, integrity.Config{Self: self, Key: key(2), Keys: st})
	if !errors.Is(err, lssync.ErrInvalidConfig) {
		t.Fatalf("err = %v, want ErrInvalidConfig", err)
	}
	t.Log(err)
}

func TestParseUnsignedPolicy(t *testing.T) {
	for s, want := range map[string]integrity.UnsignedPolicy{"accept": integrity.UnsignedAccept, "refuse": integrity.UnsignedRefuse} {
		if got, err := integrity.ParseUnsignedPolicy(s); err != nil || got != want || got.String() != s {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	if _, err := integrity.ParseUnsignedPolicy("maybe"); err == nil {
		t.Error("maybe accepted")
	}
}

func TestConfig_Validate(t *testing.T) {
	if err := integrity.DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	if p := integrity.DefaultConfig().Policy; p != integrity.UnsignedAccept {
		t.Fatalf("default policy %v, want accept", p)
	}
	bad := integrity.Config{Policy: integrity.UnsignedRefuse + 1}
	if err := bad.Validate(); !errors.Is(err, lssync.ErrInvalidConfig) {
		t.Fatalf("policy %d: %v, want ErrInvalidConfig", bad.Policy, err)
	}
}
