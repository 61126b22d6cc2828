package opsig

import (
	"crypto/ed25519"
	"fmt"

	"github.com/lsnode/lsnode/internal/edverify"
	"github.com/lsnode/lsnode/store"
)

// Verifier checks the ops of one origin against its public key with the
// key's multiples computed once (internal/edverify): a verification costs
// about 40 % of Verify's, and the verdict is the same. It is worth
// building for a key that verifies many ops; it holds about 140 KiB.
// Safe for concurrent use.
type Verifier struct {
	pub ed25519.PublicKey
	key *edverify.Key
}

// NewVerifier builds the verifier of pub. It fails with ErrBadSignature
// when pub is not an ed25519 public key (Verify refuses every signature
// under such a key).
func NewVerifier(pub ed25519.PublicKey) (*Verifier, error) {
	k, err := edverify.NewKey(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: public key %s: %v", ErrBadSignature, Fingerprint(pub), err)
	}
	return &Verifier{pub: append(ed25519.PublicKey(nil), pub...), key: k}, nil
}

// PublicKey is the key the verifier checks against.
func (v *Verifier) PublicKey() ed25519.PublicKey { return v.pub }

// Verify checks sig for e as Verify(v.PublicKey(), e, digests, sig) does,
// with the same errors.
func (v *Verifier) Verify(e store.Event, digests map[string]string, sig []byte) error {
	if len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: signature has %d bytes, want %d", ErrBadSignature, len(sig), ed25519.SignatureSize)
	}
	msg, err := Content(e, digests)
	if err != nil {
		return err
	}
	if !v.key.Verify(msg, sig) {
		return fmt.Errorf("%w under key %s", ErrBadSignature, Fingerprint(v.pub))
	}
	return nil
}
