package opsig

import (
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/lsnode/lsnode/store"
)

var (
	// ErrUnsignable marks an op whose content cannot be encoded (an
	// artifact without a known digest, metadata that is not JSON).
	ErrUnsignable = errors.New("op cannot be encoded for signing")
	// ErrBadSignature marks a signature that does not verify.
	ErrBadSignature = errors.New("op signature does not verify")
)

// Sign returns the origin's signature of e (ed25519 is deterministic: the
// same op always gets the same signature).
func Sign(key ed25519.PrivateKey, e store.Event, digests map[string]string) ([]byte, error) {
	msg, err := Content(e, digests)
	if err != nil {
		return nil, err
	}
	return ed25519.Sign(key, msg), nil
}

// Verify checks sig against pub for e. It fails with ErrBadSignature, or
// ErrUnsignable when e cannot be encoded.
func Verify(pub ed25519.PublicKey, e store.Event, digests map[string]string, sig []byte) error {
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("%w: public key has %d bytes, want %d", ErrBadSignature, len(pub), ed25519.PublicKeySize)
	}
	if len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("%w: signature has %d bytes, want %d", ErrBadSignature, len(sig), ed25519.SignatureSize)
	}
	msg, err := Content(e, digests)
	if err != nil {
		return err
	}
	if !ed25519.Verify(pub, msg, sig) {
		return fmt.Errorf("%w under key %s", ErrBadSignature, Fingerprint(pub))
	}
	return nil
}
