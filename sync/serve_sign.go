package lssync

import (
	"slices"
	"strings"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
)

// noteDigest remembers an artifact's sha256 for signing the own ops that
// name it (Integrity.SignAll).
func (b *batcher) noteDigest(id, sha string) {
	if b.digests == nil {
		b.digests = map[string]string{}
	}
	b.digests[id] = sha
}

// addOriginKeys announces, in batch, the pinned key of every origin whose
// signed ops it carries (this node's own ops are signed, if not yet, just
// before the batch is sent), so the receiver (and whoever it relays to)
// can verify them.
func addOriginKeys(in Integrity, batch *pb.Batch, self string) {
	origins := map[string]bool{}
	for _, op := range batch.GetOps() {
		if len(op.GetSignature()) > 0 || op.GetOriginReplica() == self {
			origins[op.GetOriginReplica()] = true
		}
	}
	if len(origins) == 0 {
		return
	}
	for origin, key := range in.KeysFor(origins) {
		batch.OriginKeys = append(batch.OriginKeys, &pb.OriginKey{Origin: origin, PublicKey: key})
	}
	slices.SortFunc(batch.OriginKeys, func(a, b *pb.OriginKey) int { return strings.Compare(a.GetOrigin(), b.GetOrigin()) })
}
