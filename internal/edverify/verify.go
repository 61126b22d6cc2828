package edverify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"
	"sync"

	"filippo.io/edwards25519"
)

// Table widths: the base point's table is shared by all keys, so it is
// wide; a key's is narrower to keep it small (about 140 KiB).
const (
	baseWidth = 8
	keyWidth  = 5
)

var baseTable = sync.OnceValue(func() *table {
	return newTable(edwards25519.NewGeneratorPoint(), baseWidth)
})

// ErrBadKey marks a public key that is not the encoding of a curve point
// (crypto/ed25519.Verify rejects every signature under such a key).
var ErrBadKey = errors.New("edverify: invalid ed25519 public key")

// Key is a public key with its multiples precomputed. It is read-only
// after NewKey and safe for concurrent use.
type Key struct {
	pub [ed25519.PublicKeySize]byte
	a   *table
}

// NewKey decodes pub and builds its tables.
func NewKey(pub ed25519.PublicKey) (*Key, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, ErrBadKey
	}
	a, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil {
		return nil, ErrBadKey
	}
	k := &Key{a: newTable(a, keyWidth)}
	copy(k.pub[:], pub)
	baseTable()
	return k, nil
}

// Verify reports whether sig is a valid signature of msg by the key, with
// the verdict of crypto/ed25519.Verify.
func (k *Key) Verify(msg, sig []byte) bool {
	if len(sig) != ed25519.SignatureSize || sig[63]&224 != 0 {
		return false
	}
	s, err := new(edwards25519.Scalar).SetCanonicalBytes(sig[32:])
	if err != nil {
		return false
	}
	h := sha512.New()
	h.Write(sig[:32])
	h.Write(k.pub[:])
	h.Write(msg)
	var digest [sha512.Size]byte
	c, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(digest[:0]))
	if err != nil {
		return false
	}
	r := edwards25519.NewIdentityPoint()
	baseTable().mulAdd(r, s, +1) // [S]B
	k.a.mulAdd(r, c, -1)         // - [k]A
	return bytes.Equal(sig[:32], r.Bytes())
}
