package lssync

import (
	"crypto/ed25519"
	"sync"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
)

// Pipelined verification: a session's reader goroutine checks the
// signatures of a batch as it arrives, while the session loop is still
// applying the previous one, so verification overlaps the store's commit
// instead of preceding it. The loop's integrity check (Integrity.check)
// then skips the ed25519 work for every op verified here under the key
// still pinned for its origin, and does everything else as before.

// preverified is the reader's verdict on one batch: keys[i] is the key
// ops[i]'s signature verified under, nil when it was not checked or did
// not verify (the loop then checks it itself).
type preverified struct {
	batch *pb.Batch
	keys  []ed25519.PublicKey
}

// preverify checks, on up to in.workers goroutines joined before it
// returns, the signatures of the batch's ops whose origin has a pinned
// key and that name no artifact (their digests are the loop's business).
// Ops at or below held[origin] are skipped: the loop's check leaves them
// to the store, which compares them with the op it holds, so verifying
// them (a relayed copy of an op that arrived directly) is wasted work.
func (in *Integrity) preverify(b *pb.Batch, held map[string]int64) *preverified {
	ops := b.GetOps()
	var todo []int
	keys := make([]ed25519.PublicKey, len(ops))
	for i, w := range ops {
		if len(w.GetSignature()) == 0 || len(w.GetArtifactIds()) > 0 || w.GetOriginSeq() <= held[w.GetOriginReplica()] {
			continue
		}
		if k := in.pinnedKey(w.GetOriginReplica()); k != nil {
			keys[i] = k
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	in.parallel(len(todo), func(j int) {
		i := todo[j]
		if in.verifyOp(ops[i].GetOriginReplica(), keys[i], opFromWire(ops[i]).Event, nil, ops[i].GetSignature()) != nil {
			keys[i] = nil
		}
	})
	return &preverified{batch: b, keys: keys}
}

// parallel runs fn(0..n-1) on up to in.workers goroutines, each owning a
// contiguous share, joined before it returns.
func (in *Integrity) parallel(n int, fn func(int)) {
	workers := min(in.workers, (n+verifyChunk-1)/verifyChunk)
	if workers <= 1 {
		for j := range n {
			fn(j)
		}
		return
	}
	share := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := min(w*share, n), min((w+1)*share, n)
		wg.Go(func() {
			for j := lo; j < hi; j++ {
				fn(j)
			}
		})
	}
	wg.Wait()
}

// setPreverified hands the link the reader's verdict on the batch it is
// about to handle (nil: none).
func (l *Link) setPreverified(p *preverified) { l.pre = p }

// takePreverified returns the verdict for b, if it is the batch the
// reader checked, and forgets it.
func (l *Link) takePreverified(b *pb.Batch) []ed25519.PublicKey {
	p := l.pre
	l.pre = nil
	if p == nil || p.batch != b {
		return nil
	}
	return p.keys
}

// Signing is pipelined the same way on the serving side: a session's
// writer goroutine signs a batch's own ops just before sending it, so the
// first batch of a pull answer leaves, and the receiver starts verifying
// and applying it, while the later ones are still being signed. Links
// driven without a session (the simulator) sign in the batcher.

// signInWriter leaves the signing of own ops to the session's writer.
func (l *Link) signInWriter() { l.deferSign = true }

// signFrame signs the ops of this node's origin (self) in b that carry no
// signature yet. Every batch carries the artifacts its ops name (the
// batcher adds them per batch), so their digests come from b itself.
func (in *Integrity) signFrame(b *pb.Batch, self string) {
	var pending []*pb.Op
	for _, w := range b.GetOps() {
		if w.GetOriginReplica() == self && len(w.GetSignature()) == 0 {
			pending = append(pending, w)
		}
	}
	if len(pending) == 0 {
		return
	}
	var digests map[string]string
	if len(b.GetArtifacts()) > 0 {
		digests = make(map[string]string, len(b.GetArtifacts()))
		for _, a := range b.GetArtifacts() {
			digests[a.GetId()] = a.GetSha256()
		}
	}
	in.signAll(pending, digests)
}
