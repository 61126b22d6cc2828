package edverify

import (
	"crypto/ed25519"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"filippo.io/edwards25519"
)

// smallOrder lists encodings of points of order dividing 8 (and a
// non-canonical one): keys and R values built on them are where careless
// verifiers disagree.
var smallOrder = []string{
	"0100000000000000000000000000000000000000000000000000000000000000",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0000000000000000000000000000000000000000000000000000000000000080",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
}

func mustHex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameVerdict fails when Key.Verify and crypto/ed25519.Verify disagree;
// it reports the verdict.
func sameVerdict(t testing.TB, pub ed25519.PublicKey, msg, sig []byte) bool {
	t.Helper()
	want := ed25519.Verify(pub, msg, sig)
	k, err := NewKey(pub)
	if err != nil {
		if want {
			t.Fatalf("NewKey(%x) = %v, but the standard library accepts a signature under it", pub, err)
		}
		return false
	}
	if got := k.Verify(msg, sig); got != want {
		t.Fatalf("pub %x msg %x sig %x: Verify = %v, crypto/ed25519 = %v", pub, msg, sig, got, want)
	}
	return want
}

func TestVerifyMatchesStandardLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	for i := range 300 {
		seed := make([]byte, ed25519.SeedSize)
		for j := range seed {
			seed[j] = byte(rng.Uint32())
		}
		priv := ed25519.NewKeyFromSeed(seed)
		pub := priv.Public().(ed25519.PublicKey)
		msg := make([]byte, rng.IntN(400))
		for j := range msg {
			msg[j] = byte(rng.Uint32())
		}
		sig := ed25519.Sign(priv, msg)
		if sameVerdict(t, pub, msg, sig) {
			accepted++
		}
		bad := append([]byte(nil), sig...)
		bad[rng.IntN(len(bad))] ^= 1 << rng.IntN(8)
		sameVerdict(t, pub, msg, bad)
		sameVerdict(t, pub, append(msg, byte(i)), sig)
		other := ed25519.NewKeyFromSeed(append(seed[1:], 7)).Public().(ed25519.PublicKey)
		sameVerdict(t, other, msg, sig)
		if !sameVerdict(t, pub, msg, sig) {
			t.Fatalf("a genuine signature was refused (case %d)", i)
		}
	}
	if accepted != 300 {
		t.Fatalf("%d of 300 genuine signatures verified", accepted)
	}
}

func TestVerifyRefusesWhatTheStandardLibraryRefuses(t *testing.T) {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := priv.Public().(ed25519.PublicKey)
	msg := []byte("lsnode")
	sig := ed25519.Sign(priv, msg)
	// S + l: the same point, but a non-canonical scalar.
	l, _ := new(edwards25519.Scalar).SetCanonicalBytes(sig[32:])
	plusL := addOrder(l.Bytes())
	cases := map[string][]byte{
		"short":         sig[:63],
		"long":          append(append([]byte(nil), sig...), 0),
		"top bits":      append(append([]byte(nil), sig[:63]...), sig[63]|0x80),
		"S plus order":  append(append([]byte(nil), sig[:32]...), plusL...),
		"zero":          make([]byte, 64),
		"R small order": append(mustHex(t, smallOrder[0]), sig[32:]...),
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			if sameVerdict(t, pub, msg, s) {
				t.Fatal("accepted")
			}
		})
	}
}

// addOrder returns the 32-byte little-endian s + l (l the group order);
// s + l < 2^256 for every s < l.
func addOrder(s []byte) []byte {
	order, _ := hex.DecodeString("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
	out := make([]byte, 32)
	carry := 0
	for i := range out {
		v := int(s[i]) + int(order[i]) + carry
		out[i], carry = byte(v), v>>8
	}
	return out
}

// TestSmallOrderKeysAndPoints: keys and R values of small order, where
// the cofactorless equation decides differently from the cofactored one;
// the verdict must be the standard library's in every combination.
func TestSmallOrderKeysAndPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// The identity as key and as R with S = 0 verifies for any message:
	// [0]B - [k]O = O.
	if !sameVerdict(t, mustHex(t, smallOrder[0]), []byte("any"), append(mustHex(t, smallOrder[0]), make([]byte, 32)...)) {
		t.Fatal("the identity signature was refused")
	}
	for _, a := range smallOrder {
		pub := mustHex(t, a)
		for _, r := range smallOrder {
			for range 4 {
				s := make([]byte, 32)
				for j := range s[:31] {
					s[j] = byte(rng.Uint32())
				}
				if rng.IntN(2) == 0 {
					s = make([]byte, 32) // S = 0: [S]B is the identity
				}
				sameVerdict(t, pub, []byte{byte(rng.Uint32())}, append(mustHex(t, r), s...))
			}
		}
	}
}

// TestTableMultiplication holds the fixed-window multiplication to the
// library's constant-time ScalarMult, at the scalars where digit carries
// and the last window matter.
func TestTableMultiplication(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := new(edwards25519.Point).ScalarBaseMult(scalarFrom(t, []byte{9}))
	scalars := []*edwards25519.Scalar{
		scalarFrom(t, nil), scalarFrom(t, []byte{1}), scalarFrom(t, []byte{16}), scalarFrom(t, []byte{0xff, 0xff}),
	}
	minusOne := new(edwards25519.Scalar).Subtract(scalarFrom(t, nil), scalarFrom(t, []byte{1})) // l - 1
	scalars = append(scalars, minusOne)
	for range 50 {
		wide := make([]byte, 64)
		for j := range wide {
			wide[j] = byte(rng.Uint32())
		}
		s, _ := new(edwards25519.Scalar).SetUniformBytes(wide)
		scalars = append(scalars, s)
	}
	for _, w := range []uint{4, keyWidth, 6, baseWidth} {
		tab := newTable(p, w)
		for _, s := range scalars {
			want := new(edwards25519.Point).ScalarMult(s, p)
			got := edwards25519.NewIdentityPoint()
			tab.mulAdd(got, s, +1)
			if got.Equal(want) != 1 {
				t.Fatalf("w=%d s=%x: [s]P differs from ScalarMult", w, s.Bytes())
			}
			got = edwards25519.NewIdentityPoint()
			tab.mulAdd(got, s, -1)
			if got.Equal(new(edwards25519.Point).Negate(want)) != 1 {
				t.Fatalf("w=%d s=%x: [-s]P differs from -ScalarMult", w, s.Bytes())
			}
		}
	}
}

// TestSignedDigits: the digits are bounded by the table rows and add up
// to the scalar, up to 2^256 - 1.
func TestSignedDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, w := range []uint{4, keyWidth, 6, baseWidth} {
		for i := range 200 {
			b := make([]byte, 32)
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			if i == 0 {
				for j := range b {
					b[j] = 0xff
				}
			}
			var d [maxWindows]int16
			digits := signedDigits(&d, b, w, windows(w))
			half := int16(1) << (w - 1)
			for j, v := range digits {
				if v < -half || v > half {
					t.Fatalf("w=%d digit %d = %d, outside ±%d", w, j, v, half)
				}
			}
			if got := recompose(digits, w); string(got) != string(b) {
				t.Fatalf("w=%d: digits of %x recompose to %x", w, b, got)
			}
		}
	}
}

// recompose returns Σ d[i]·2^(w·i) as 32 little-endian bytes (mod 2^256).
func recompose(d []int16, w uint) []byte {
	acc := make([]int64, 40) // bytes with room for carries and borrows
	for i, v := range d {
		pos := uint(i) * w
		x := int64(v) << (pos % 8)
		acc[pos/8] += x
	}
	out := make([]byte, 32)
	var carry int64
	for i := range acc {
		v := acc[i] + carry
		carry = v >> 8 // arithmetic shift: floors negative values
		if i < 32 {
			out[i] = byte(v)
		}
	}
	return out
}

func scalarFrom(t testing.TB, le []byte) *edwards25519.Scalar {
	b := make([]byte, 32)
	copy(b, le)
	s, err := new(edwards25519.Scalar).SetCanonicalBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewKeyRefusesNonPoints(t *testing.T) {
	for _, pub := range [][]byte{make([]byte, 31), mustHex(t, "0200000000000000000000000000000000000000000000000000000000000000")} {
		if _, err := NewKey(pub); err == nil {
			t.Fatalf("NewKey(%x) accepted", pub)
		}
	}
}
