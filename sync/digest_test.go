package lssync

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestDigest_MatchesNaiveEquality checks, on random vector pairs, that
// digests are equal exactly when the vectors are (ignoring zero entries).
func TestDigest_MatchesNaiveEquality(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		a, b := randomVector(rng), randomVector(rng)
		if rng.IntN(2) == 0 {
			b = cloneVector(a)
			if rng.IntN(2) == 0 {
				b[fmt.Sprintf("rep_%d", rng.IntN(8))] = 0 // zero entries carry nothing
			}
		}
		naive := equalIgnoringZero(a, b)
		if got := bytes.Equal(Digest(a), Digest(b)); got != naive {
			t.Fatalf("case %d: digest equality %v, vectors equal %v: %v vs %v", i, got, naive, a, b)
		}
	}
}

func TestDigest_FixedSize(t *testing.T) {
	for _, n := range []int{0, 1, 10, 1000} {
		vv := map[string]int64{}
		for i := range n {
			vv[fmt.Sprintf("rep_%032x", i)] = int64(i + 1)
		}
		if got := len(Digest(vv)); got != DigestSize {
			t.Errorf("%d origins: digest is %d bytes, want %d", n, got, DigestSize)
		}
	}
}

func randomVector(rng *rand.Rand) map[string]int64 {
	vv := map[string]int64{}
	for range rng.IntN(6) {
		vv[fmt.Sprintf("rep_%d", rng.IntN(8))] = rng.Int64N(4)
	}
	return vv
}

func cloneVector(vv map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(vv))
	for k, v := range vv {
		out[k] = v
	}
	return out
}

func equalIgnoringZero(a, b map[string]int64) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
