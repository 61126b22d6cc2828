package lssync

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

// onPull serves a peer's pull: the ops after each range's position, in
// origin order, cut into batches bounded by Config.BatchOps and
// Config.BatchBytes, at most min(max_batches, PullWindow) batches. The
// last batch says whether more was held than sent.
func (l *Link) onPull(ctx context.Context, p *pb.Pull) ([]*pb.Frame, error) {
	if p.GetId() == 0 { // id 0 marks a push: its answer would carry no frame to mark last
		return nil, fmt.Errorf("%w: pull without an id", ErrProtocol)
	}
	for _, r := range p.GetAfter() {
		if r.GetSeq() < 0 { // the store would refuse the read as bad input, not as the peer's fault
			return nil, fmt.Errorf("%w: pull after origin_seq %d of %s", ErrProtocol, r.GetSeq(), rules.Repr(r.GetOrigin()))
		}
	}
	raiseVector(l.peerHas, p.GetAfter())
	window := min(max(int(p.GetMaxBatches()), 1), l.cfg.PullWindow)
	b := newBatcher(l, p.GetId(), window)
	local := l.log.VersionVector()
	more, err := l.fill(ctx, b, p.GetAfter(), local)
	if err != nil {
		return nil, err
	}
	frames := b.finish()
	last := frames[len(frames)-1].GetBatch()
	last.Last = true
	last.More = more
	return frames, nil
}

// fill adds the ranges to b until they are exhausted (more = false) or the
// window is full (more = true): window batches, or window*BatchBytes
// bytes, as ops naming large artifacts make batches far larger than
// BatchBytes and the answer must fit the session's outbox.
func (l *Link) fill(ctx context.Context, b *batcher, after []*pb.VectorEntry, local map[string]int64) (bool, error) {
	for _, r := range after {
		origin, pos := r.GetOrigin(), r.GetSeq()
		for pos < local[origin] {
			if b.windowFull() {
				return true, nil
			}
			ops, err := l.log.OpsAfter(ctx, origin, pos, b.opsLeft(), b.bytesLeft())
			if err != nil {
				return false, fmt.Errorf("read ops of %s after %d: %w", origin, pos, err)
			}
			if len(ops) == 0 {
				if b.curEmpty() {
					break // nothing servable for this range
				}
				b.rotate()
				continue
			}
			for _, op := range ops {
				if err := b.add(ctx, op); err != nil {
					return false, err
				}
				pos = op.Event.OriginSeq
			}
		}
	}
	return false, nil
}

// batcher cuts ops, and the artifacts they name, into Batch frames.
type batcher struct {
	l         *Link
	pullID    uint64
	window    int // max frames; 0 = unbounded (push)
	done      []*pb.Frame
	doneBytes int // sizes of done, counted as curBytes
	cur       *pb.Batch
	curBytes  int
	curArts   map[string]bool
	// Origin integrity: own ops to sign in finish (a Link that signs in
	// its session's writer leaves them to it), and the digests of the
	// artifacts they name.
	toSign  []*pb.Op
	digests map[string]string
}

func newBatcher(l *Link, pullID uint64, window int) *batcher {
	b := &batcher{l: l, pullID: pullID, window: window}
	b.reset()
	return b
}

func (b *batcher) reset() {
	b.cur = &pb.Batch{PullId: b.pullID}
	b.curBytes = 0
	b.curArts = map[string]bool{}
}

func (b *batcher) curEmpty() bool { return len(b.cur.Ops) == 0 && len(b.cur.Artifacts) == 0 }
func (b *batcher) windowFull() bool {
	return b.window > 0 && (len(b.done) >= b.window || b.doneBytes+b.curBytes >= b.window*b.l.cfg.BatchBytes)
}
func (b *batcher) opsLeft() int   { return max(b.l.cfg.BatchOps-len(b.cur.Ops), 1) }
func (b *batcher) bytesLeft() int { return max(b.l.cfg.BatchBytes-b.curBytes, 1) }

// rotate closes the current batch.
func (b *batcher) rotate() {
	b.done = append(b.done, &pb.Frame{Kind: &pb.Frame_Batch{Batch: b.cur}})
	b.doneBytes += b.curBytes
	b.reset()
}

// add appends op, preceded by the artifacts it names that the batch does
// not carry yet, and closes the batch once it is full. An artifact the
// sender does not hold is left out: the receiver defers the op. A push
// leaves out an artifact pushed on this session already (artifact_dedup.go).
func (b *batcher) add(ctx context.Context, op store.Op) error {
	push, signHere := b.pullID == 0, false
	for _, id := range op.Event.ArtifactIDs {
		if b.curArts[id] {
			continue
		}
		if sha, ok := b.l.art.pushedBefore(id); push && ok {
			if b.l.cfg.Integrity != nil {
				b.noteDigest(id, sha)
				signHere = true
			}
			continue
		}
		a, err := b.l.log.GetArtifact(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read artifact %s: %w", id, err)
		}
		w := artifactToWire(a)
		if b.l.cfg.Integrity != nil {
			b.noteDigest(a.ID, a.SHA256)
		}
		b.cur.Artifacts = append(b.cur.Artifacts, w)
		b.curBytes += proto.Size(w)
		b.curArts[id] = true
		if push {
			b.l.art.notePushed(id, a.SHA256)
		}
	}
	w := OpToWire(op)
	if b.l.cfg.Integrity != nil && op.Event.OriginReplica == b.l.self && len(w.Signature) == 0 {
		if !b.l.deferSign || signHere {
			b.toSign = append(b.toSign, w)
		}
		b.curBytes += 64 // the signature added before the frame leaves
	}
	b.cur.Ops = append(b.cur.Ops, w)
	b.curBytes += proto.Size(w)
	raise(b.l.sent, op.Event.OriginReplica, op.Event.OriginSeq)
	if len(b.cur.Ops) >= b.l.cfg.BatchOps || b.curBytes >= b.l.cfg.BatchBytes {
		b.rotate()
	}
	return nil
}

// finish closes a non-empty current batch and returns the frames; a pull
// answer always has at least one (possibly empty) batch.
func (b *batcher) finish() []*pb.Frame {
	if !b.curEmpty() || (b.pullID != 0 && len(b.done) == 0) {
		b.rotate()
	}
	if in := b.l.cfg.Integrity; in != nil {
		in.SignAll(b.toSign, b.digests) // with SignInWriter, only what the writer cannot sign
		for _, f := range b.done {
			addOriginKeys(in, f.GetBatch(), b.l.self)
		}
	}
	return b.done
}
