package integrity

import (
	"crypto/ed25519"
	"runtime"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
)

// SignCopy signs ops of the origin whose key is key, read from a copy of
// its log (a snapshot, store.SignFunc), with the signature SignAll gives
// them when they are served, on up to GOMAXPROCS goroutines joined before
// it returns. An op that cannot be encoded (an artifact the copy lacks)
// is left unsigned, as SignAll leaves it.
func SignCopy(key ed25519.PrivateKey, ops []store.Op, digests map[string]string) {
	parallel(max(runtime.GOMAXPROCS(0), 1), len(ops), func(j int) {
		if sig, err := signWire(key, lssync.OpToWire(ops[j]), digests); err == nil {
			ops[j].Signature = sig
		}
	})
}

// SignCopy is SignCopy under this node's key: it signs the node's own ops
// into a snapshot of its log (store.Store.Snapshot).
func (in *Integrity) SignCopy(ops []store.Op, digests map[string]string) {
	SignCopy(in.key, ops, digests)
}
