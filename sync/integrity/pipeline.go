package integrity

import (
	"crypto/ed25519"
	"sync"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	lssync "github.com/lsnode/lsnode/sync"
)

// Pipelined verification: a session's reader goroutine checks the
// signatures of a batch as it arrives (Preverify), while the session loop
// is still applying the previous one, so verification overlaps the
// store's commit instead of preceding it. The loop's integrity check
// (Integrity.Check) then skips the ed25519 work for every op verified
// here under the key still pinned for its origin, and does everything
// else as before. Signing is pipelined the same way on the serving side:
// a session's writer goroutine signs a batch's own ops just before
// sending it (SignFrame).

// Preverify checks, on up to in.workers goroutines joined before it
// returns, the signatures of the batch's ops whose origin has a pinned
// key and that name no artifact (their digests are the loop's business).
// Ops at or below held[origin] are skipped: the loop's check leaves them
// to the store, which compares them with the op it holds, so verifying
// them (a relayed copy of an op that arrived directly) is wasted work.
func (in *Integrity) Preverify(b *pb.Batch, held map[string]int64) []ed25519.PublicKey {
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
		if in.verifyOp(ops[i].GetOriginReplica(), keys[i], lssync.OpFromWire(ops[i]).Event, nil, ops[i].GetSignature()) != nil {
			keys[i] = nil
		}
	})
	return keys
}

// parallel runs fn(0..n-1) on up to in.workers goroutines, each owning a
// contiguous share, joined before it returns.
func (in *Integrity) parallel(n int, fn func(int)) { parallel(in.workers, n, fn) }

// parallel runs fn(0..n-1) on up to workers goroutines.
func parallel(workers, n int, fn func(int)) {
	workers = min(workers, (n+verifyChunk-1)/verifyChunk)
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

// SignFrame signs the ops of this node's origin (self) in b that carry no
// signature yet. Every batch carries the artifacts its ops name (the
// batcher adds them per batch), so their digests come from b itself.
func (in *Integrity) SignFrame(b *pb.Batch, self string) {
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
	in.SignAll(pending, digests)
}
