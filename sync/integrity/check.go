package integrity

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/opsig"
)

// verifyChunk is the least number of signatures worth a goroutine.
const verifyChunk = 32

// Check runs the integrity check on received ops before they are applied.
// Ops at or below held[origin] are left alone (the store compares them
// with the op it holds). Every other op gets a store.Refusal when:
//   - it carries a signature that does not verify against its origin's
//     pinned key, or no key is known for its origin (ReasonSignature);
//   - it carries none and its origin has a pinned key, or the policy
//     refuses unsigned origins (ReasonUnsigned).
//
// It returns the ops to apply: an op naming an artifact whose digest is
// neither held nor in the batch cannot be verified yet and is held back
// (heldBack counts them; the caller pulls again, as for a deferred op).
func (in *Integrity) Check(ctx context.Context, ops []store.Op, arts []store.Artifact, held map[string]int64, pre []ed25519.PublicKey) (kept []store.Op, heldBack int, err error) {
	var todo []int // ops to verify
	needDigests := false
	for i := range ops {
		op := &ops[i]
		e := op.Event
		if e.OriginSeq <= 0 || e.OriginSeq <= held[e.OriginReplica] {
			continue
		}
		key := in.pinnedKey(e.OriginReplica)
		switch {
		case len(op.Signature) == 0 && key != nil:
			in.refuse(op, store.ReasonUnsigned, fmt.Sprintf(
				"origin %s signs its ops (key %s pinned) but this copy carries no signature; it applies when it arrives signed",
				e.OriginReplica, opsig.Fingerprint(key)))
		case len(op.Signature) == 0 && in.policy == UnsignedRefuse:
			in.refuse(op, store.ReasonUnsigned, fmt.Sprintf(
				"origin %s does not sign its ops and this node refuses unsigned origins (--unsigned-origins=refuse)", e.OriginReplica))
		case len(op.Signature) == 0:
			in.m.result("unsigned_accepted")
		case key == nil:
			in.refuse(op, store.ReasonSignature, errNoKey.Error())
		default:
			todo = append(todo, i)
			needDigests = needDigests || len(e.ArtifactIDs) > 0
		}
	}
	var digests map[string]string
	var later map[int]bool // ops that cannot be verified yet
	if needDigests {
		if digests, err = in.digests(ctx, ops, todo, arts); err != nil {
			return nil, 0, err
		}
		ready := todo[:0]
		for _, i := range todo {
			if hasDigests(ops[i].Event, digests) {
				ready = append(ready, i)
				continue
			}
			if later == nil {
				later = map[int]bool{}
			}
			later[i] = true
		}
		todo = ready
	}
	in.verifyAll(ops, todo, digests, pre)
	if len(later) == 0 {
		return ops, 0, nil
	}
	kept = make([]store.Op, 0, len(ops)-len(later))
	for i := range ops {
		if !later[i] {
			kept = append(kept, ops[i])
		}
	}
	return kept, len(later), nil
}

func (in *Integrity) refuse(op *store.Op, reason, detail string) {
	op.Refusal = &store.Refusal{Reason: reason, Detail: detail}
	op.Signature = nil
	in.m.result("refused_" + reason)
}

// digests returns the sha256 of every artifact the ops to verify name:
// the held artifact's when held (the store links an op to the artifact it
// holds, whatever the batch brings), else the batch's own, when its
// content matches its claimed digest.
func (in *Integrity) digests(ctx context.Context, ops []store.Op, todo []int, arts []store.Artifact) (map[string]string, error) {
	var ids []string
	for _, i := range todo {
		ids = append(ids, ops[i].Event.ArtifactIDs...)
	}
	out, err := in.keys.ArtifactDigests(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, a := range arts {
		if _, ok := out[a.ID]; ok {
			continue
		}
		sum := sha256.Sum256([]byte(a.Content))
		if hex.EncodeToString(sum[:]) == a.SHA256 {
			out[a.ID] = a.SHA256
		}
	}
	return out, nil
}

func hasDigests(e store.Event, digests map[string]string) bool {
	for _, id := range e.ArtifactIDs {
		if _, ok := digests[id]; !ok {
			return false
		}
	}
	return true
}

// verifyAll checks the signatures of ops[todo] on up to in.workers
// goroutines (Integrity.parallel). pre[i], when set, is the key the
// session's reader already verified ops[i] under (Preverify): if it is
// still the pinned key, the op is not verified again.
func (in *Integrity) verifyAll(ops []store.Op, todo []int, digests map[string]string, pre []ed25519.PublicKey) {
	if len(todo) == 0 {
		return
	}
	in.parallel(len(todo), func(j int) {
		i := todo[j]
		var done ed25519.PublicKey
		if i < len(pre) {
			done = pre[i]
		}
		in.verifyOne(&ops[i], digests, done)
	})
}

func (in *Integrity) verifyOne(op *store.Op, digests map[string]string, done ed25519.PublicKey) {
	e := op.Event
	key := in.pinnedKey(e.OriginReplica)
	if done != nil && key.Equal(done) {
		in.m.result("verified")
		in.m.preverified.Add(1)
		return
	}
	if err := in.verifyOp(e.OriginReplica, key, e, digests, op.Signature); err != nil {
		in.refuse(op, store.ReasonSignature, err.Error())
		return
	}
	in.m.result("verified")
}

// SignAll signs pending ops of this node's own origin on up to in.workers
// goroutines (Integrity.parallel), what a receiver verifies: the content
// of each wire op. An op that cannot be encoded (an artifact this node no
// longer holds) goes unsigned; a receiver that pinned this node's key
// then waits for it.
func (in *Integrity) SignAll(pending []*pb.Op, digests map[string]string) {
	in.parallel(len(pending), func(j int) {
		w := pending[j]
		if sig := in.own.get(w.GetOriginSeq()); sig != nil {
			w.Signature = sig
			return
		}
		sig, err := signWire(in.key, w, digests)
		if err != nil {
			in.logger.Warn("serving an own op unsigned", "id", w.GetId(), "origin_seq", w.GetOriginSeq(), "err", err)
			return
		}
		w.Signature = sig
		in.own.put(w.GetOriginSeq(), sig)
		in.m.signedOne()
	})
}

// signWire is what SignAll signs for a wire op: the op as a receiver
// reads it.
func signWire(key ed25519.PrivateKey, w *pb.Op, digests map[string]string) ([]byte, error) {
	return opsig.Sign(key, lssync.OpFromWire(w).Event, digests)
}
