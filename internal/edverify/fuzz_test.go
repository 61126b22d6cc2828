package edverify

import (
	"crypto/ed25519"
	"testing"
)

// FuzzVerify holds Key.Verify to crypto/ed25519.Verify on arbitrary keys,
// messages and signatures, seeded with genuine and small-order ones.
func FuzzVerify(f *testing.F) {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := priv.Public().(ed25519.PublicKey)
	for _, m := range []string{"", "lsnode", "an op"} {
		f.Add([]byte(pub), []byte(m), ed25519.Sign(priv, []byte(m)))
	}
	for _, a := range smallOrder {
		f.Add(mustHex(f, a), []byte("x"), append(mustHex(f, smallOrder[1]), make([]byte, 32)...))
	}
	f.Fuzz(func(t *testing.T, pub, msg, sig []byte) {
		if len(pub) != ed25519.PublicKeySize {
			return // crypto/ed25519.Verify panics; NewKey refuses
		}
		sameVerdict(t, pub, msg, sig)
	})
}

func BenchmarkVerify(b *testing.B) {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := priv.Public().(ed25519.PublicKey)
	msg := make([]byte, 400)
	sig := ed25519.Sign(priv, msg)
	b.Run("impl=stdlib", func(b *testing.B) {
		for b.Loop() {
			if !ed25519.Verify(pub, msg, sig) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("impl=tables", func(b *testing.B) {
		k, err := NewKey(pub)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if !k.Verify(msg, sig) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("impl=newkey", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewKey(pub); err != nil {
				b.Fatal(err)
			}
		}
	})
}
