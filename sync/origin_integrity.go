package lssync

import (
	"context"
	"crypto/ed25519"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// Integrity is origin integrity as replication uses it: this node's own
// ops are signed when served, origins' public keys are pinned on first
// sight and announced with the ops they signed, and every received op is
// checked against its origin's pinned key before it is applied. The
// sync/integrity package provides it; a Link without one neither signs nor
// verifies. Implementations are shared by every session and must be safe
// for concurrent use.
type Integrity interface {
	// PublicKey is this node's public key, sent in its Hello.
	PublicKey() ed25519.PublicKey
	// Learn pins key for origin on first sight (announced by peer); a
	// key other than the pinned one is refused and reported, not
	// returned as an error. An error means the pin could not be stored.
	Learn(ctx context.Context, origin string, key []byte, peer string) error
	// Check checks received ops before they are applied: an op that
	// fails gets a store.Refusal (the store quarantines it without
	// consuming its slot). held is what this node holds; ops at or below
	// it are left to the store. pre[i], when set, is the key the
	// signature of ops[i] verified under ahead of the check (Preverify).
	// It returns the ops to apply; heldBack ops cannot be checked yet
	// (an artifact digest is missing) and wait for a later pull.
	Check(ctx context.Context, ops []store.Op, arts []store.Artifact, held map[string]int64, pre []ed25519.PublicKey) (kept []store.Op, heldBack int, err error)
	// SignAll signs wire ops of this node's origin; digests holds the
	// sha256 of the artifacts they name.
	SignAll(ops []*pb.Op, digests map[string]string)
	// KeysFor returns the pinned keys of origins (those it has).
	KeysFor(origins map[string]bool) map[string]ed25519.PublicKey

	// Preverify and SignFrame let a driver verify a received batch and
	// sign a batch to send off the Link's goroutine: Preverify returns,
	// per op of b not held yet, the key its signature verified under
	// (nil: not checked), for Link.SetPreverified; SignFrame signs the
	// ops of origin self in b that carry no signature, for a Link whose
	// driver signs (Link.SignInWriter).
	Preverify(b *pb.Batch, held map[string]int64) []ed25519.PublicKey
	SignFrame(b *pb.Batch, self string)
}

// preverified is a driver's verdict on one batch (Integrity.Preverify):
// keys[i] is the key ops[i]'s signature verified under, nil when it was
// not checked or did not verify (the Link's check then verifies it).
type preverified struct {
	batch *pb.Batch
	keys  []ed25519.PublicKey
}

// SetPreverified hands the link the verdict of Integrity.Preverify on b,
// the batch it is about to handle (nil b or keys: none). The Link's
// integrity check then skips the ed25519 work for every op verified
// under the key still pinned for its origin.
func (l *Link) SetPreverified(b *pb.Batch, keys []ed25519.PublicKey) {
	l.pre = nil
	if b != nil && keys != nil {
		l.pre = &preverified{batch: b, keys: keys}
	}
}

// takePreverified returns the verdict for b, if it is the batch the
// driver checked, and forgets it.
func (l *Link) takePreverified(b *pb.Batch) []ed25519.PublicKey {
	p := l.pre
	l.pre = nil
	if p == nil || p.batch != b {
		return nil
	}
	return p.keys
}

// SignInWriter leaves the signing of own ops to the link's driver, which
// signs each batch just before sending it (Integrity.SignFrame): the first
// batch of a pull answer leaves, and the receiver starts verifying and
// applying it, while the later ones are still being signed. A Link driven
// without it (the simulator) signs in its batcher.
func (l *Link) SignInWriter() { l.deferSign = true }
