package grpcpeer

import (
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
)

// outbox is a session's send queue, bounded in bytes. The session loop
// never blocks on it: a pushed batch (of ops, or of artifacts from the
// feed) that does not fit is refused (the peer will pull it), any other
// frame is queued (the protocol bounds them:
// one pull answer of PullWindow batches, a few control frames) up to twice
// the limit, past which the peer counts as stalled.
type outbox struct {
	limit int
	ready chan struct{} // signalled when a frame is queued
	mu    struct {
		sync.Mutex
		frames   []sized
		bytes    int
		progress time.Time // last completed send, or when the queue became non-empty
	}
}

type sized struct {
	f    *pb.Frame
	size int
}

func newOutbox(limit int) *outbox {
	return &outbox{limit: limit, ready: make(chan struct{}, 1)}
}

// put queues f and reports whether it was accepted; stalled is true when a
// frame that must not be dropped does not fit even in twice the limit.
func (o *outbox) put(f *pb.Frame, now time.Time) (accepted, stalled bool) {
	size := proto.Size(f)
	droppable := isPush(f)
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case droppable && o.mu.bytes+size > o.limit && len(o.mu.frames) > 0:
		return false, false
	case !droppable && o.mu.bytes+size > 2*o.limit && len(o.mu.frames) > 0:
		return false, true
	}
	if len(o.mu.frames) == 0 {
		o.mu.progress = now
	}
	o.mu.frames = append(o.mu.frames, sized{f, size})
	o.mu.bytes += size
	select {
	case o.ready <- struct{}{}:
	default:
	}
	return true, false
}

// take removes the oldest frame; ok is false when the queue is empty.
func (o *outbox) take() (f *pb.Frame, size int, ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.mu.frames) == 0 {
		return nil, 0, false
	}
	s := o.mu.frames[0]
	o.mu.frames[0] = sized{}
	o.mu.frames = o.mu.frames[1:]
	o.mu.bytes -= s.size
	return s.f, s.size, true
}

// queued is the size of the frames waiting.
func (o *outbox) queued() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.mu.bytes
}

// sent records a completed send.
func (o *outbox) sent(now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.mu.progress = now
}

// stalledSince reports whether frames have waited without any send
// completing for longer than d.
func (o *outbox) stalledSince(now time.Time, d time.Duration) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.mu.frames) > 0 && now.Sub(o.mu.progress) > d
}

// isPush reports whether f is pushed (an op batch or artifacts pushed
// from the feed): what a round repairs when it is dropped.
func isPush(f *pb.Frame) bool {
	switch k := f.GetKind().(type) {
	case *pb.Frame_Batch:
		return k.Batch.GetPullId() == 0
	case *pb.Frame_ArtifactBatch:
		return k.ArtifactBatch.GetGetId() == 0
	}
	return false
}
