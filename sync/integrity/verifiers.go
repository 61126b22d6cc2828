package integrity

import (
	"crypto/ed25519"
	"sync"

	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/opsig"
)

// maxVerifiers bounds the origins whose opsig.Verifier (about 140 KiB of
// precomputed multiples of the key) is kept: 64 take about 9 MiB. Past
// it the set is emptied and rebuilt from the origins seen next, so it
// follows the origins that are writing.
const maxVerifiers = 64

// verifiers keeps an opsig.Verifier per origin: each remote op is checked
// against its origin's pinned key, and a verifier does that in about 40 %
// of the CPU of opsig.Verify, with the same verdict. The zero value is
// ready to use.
type verifiers struct {
	mu sync.Mutex
	m  map[string]*opsig.Verifier
}

// get returns the verifier of key for origin, built on first use or when
// the key differs from the one it was built for; nil when key is not an
// ed25519 point.
func (vs *verifiers) get(origin string, key ed25519.PublicKey) *opsig.Verifier {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if v := vs.m[origin]; v != nil && v.PublicKey().Equal(key) {
		return v
	}
	v, err := opsig.NewVerifier(key)
	if err != nil {
		return nil
	}
	if vs.m == nil || len(vs.m) >= maxVerifiers {
		vs.m = map[string]*opsig.Verifier{}
	}
	vs.m[origin] = v
	return v
}

// verifyOp checks sig for e, an op of origin, against key.
func (in *Integrity) verifyOp(origin string, key ed25519.PublicKey, e store.Event, digests map[string]string, sig []byte) error {
	if v := in.vs.get(origin, key); v != nil {
		return v.Verify(e, digests, sig)
	}
	return opsig.Verify(key, e, digests, sig)
}
