package lssync

import (
	"context"
	"fmt"
	"testing"
	"time"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/store"
)

var queueT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// behindPair is a puller whose batches are stored behind its link (as a
// session does) and a source, both on real stores, driven by hand: frames
// are delivered at once, but the puller's batches wait in jobs until the
// test stores them.
type behindPair struct {
	t        *testing.T
	puller   *Link
	source   *Link
	dst      Log
	jobs     []*QueuedBatch
	pulls    []*pb.Pull // every Pull the puller sent, in order
	maxQueue int        // most batches queued at once
}

func newBehindPair(t *testing.T, dst Log, srcOps int) *behindPair {
	t.Helper()
	cfg := DefaultConfig("c1")
	cfg.BatchOps, cfg.PullWindow = 10, 2 // a window is 20 ops
	src := openTestStore(t)
	for i := range srcOps {
		if _, err := src.Append(context.Background(), store.AppendInput{
			Type: "note", Stream: "s", Room: "r", FromAgent: "a@1", ToAgent: "*", Body: fmt.Sprintf("op %d", i),
		}); err != nil {
			t.Fatal(err)
		}
	}
	p := &behindPair{t: t, puller: NewLink(cfg, dst, true), source: NewLink(cfg, StoreLog(src), false), dst: dst}
	p.puller.ApplyBehind()
	p.source.Open(queueT0)
	p.toSource(p.puller.Open(queueT0))
	return p
}

func openTestStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// toSource delivers frames to the source and its answers back, until
// both are quiet.
func (p *behindPair) toSource(frames []*pb.Frame) {
	p.t.Helper()
	for len(frames) > 0 {
		var back []*pb.Frame
		for _, f := range frames {
			if pull := f.GetPull(); pull != nil {
				p.pulls = append(p.pulls, pull)
			}
			out, err := p.source.Handle(context.Background(), f, queueT0)
			if err != nil {
				p.t.Fatalf("source: %v", err)
			}
			back = append(back, out...)
		}
		frames = p.toPuller(back)
	}
}

func (p *behindPair) toPuller(frames []*pb.Frame) []*pb.Frame {
	p.t.Helper()
	var out []*pb.Frame
	for _, f := range frames {
		more, err := p.puller.Handle(context.Background(), f, queueT0)
		if err != nil {
			p.t.Fatalf("puller: %v", err)
		}
		out = append(out, more...)
		p.jobs = append(p.jobs, p.puller.TakeQueued()...)
		p.maxQueue = max(p.maxQueue, len(p.jobs))
	}
	return out
}

// storeNext stores the oldest queued batch and delivers what the puller
// says then.
func (p *behindPair) storeNext() {
	p.t.Helper()
	job := p.jobs[0]
	p.jobs = p.jobs[1:]
	res, err := p.dst.ApplyBatch(context.Background(), job.batch)
	out, err := p.puller.Stored(context.Background(), job, res, err, queueT0)
	if err != nil {
		p.t.Fatal(err)
	}
	p.toSource(out)
}

// TestApplyBehind_NextWindowBeforeStored: the puller asks for the next
// window as soon as the current one has arrived, before any of it is
// stored, but runs at most one window ahead of the store; the next pull
// starts after the queued ops, the batches are stored in order, and the
// pull closes (caught up) once everything is stored.
func TestApplyBehind_NextWindowBeforeStored(t *testing.T) {
	dst := openTestStore(t)
	p := newBehindPair(t, StoreLog(dst), 100)
	if len(p.pulls) != 2 || len(p.jobs) != 4 {
		t.Fatalf("before anything was stored: %d pulls sent, %d batches queued; want 2 and 4 (two windows)", len(p.pulls), len(p.jobs))
	}
	if got := p.pulls[1].GetAfter()[0].GetSeq(); got != 20 {
		t.Fatalf("the second pull starts after %d, want 20 (the first window, queued, not stored)", got)
	}
	if held := dst.VersionVector()[p.source.self]; held != 0 {
		t.Fatalf("the puller holds %d ops before the test stored any", held)
	}
	p.storeNext()
	if len(p.pulls) != 2 {
		t.Fatal("a third window was asked for while the first was half stored")
	}
	p.storeNext()
	if len(p.pulls) != 3 || p.pulls[2].GetAfter()[0].GetSeq() != 40 {
		t.Fatalf("after the first window was stored: %d pulls, want 3 with the last after 40", len(p.pulls))
	}
	for len(p.jobs) > 0 {
		p.storeNext()
	}
	if held := dst.VersionVector()[p.source.self]; held != 100 {
		t.Fatalf("the puller holds %d of 100 ops", held)
	}
	if p.maxQueue > 2*2 {
		t.Fatalf("%d batches were queued at once; a pull runs at most one window (2 batches) ahead", p.maxQueue)
	}
	if p.puller.pull != nil || !p.puller.caughtUp || p.puller.applying != 0 || p.puller.queuedTop != nil {
		t.Fatalf("after everything was stored: pull %v, caught up %v, applying %d, queued %v",
			p.puller.pull, p.puller.caughtUp, p.puller.applying, p.puller.queuedTop)
	}
}

// storesNothing is a Log whose ApplyBatch stores nothing and defers
// every op, as a store does with ops after a hole.
type storesNothing struct{ Log }

func (storesNothing) ApplyBatch(_ context.Context, b store.Batch) (store.ApplyResult, error) {
	return store.ApplyResult{Deferred: len(b.Ops)}, nil
}

// TestApplyBehind_StopsWhenNothingStored: a window that stores nothing
// ends the chain of windows, as it does for a link that applies in
// Handle: the window asked for ahead is the last.
func TestApplyBehind_StopsWhenNothingStored(t *testing.T) {
	dst := storesNothing{StoreLog(openTestStore(t))}
	p := newBehindPair(t, dst, 100)
	for len(p.jobs) > 0 {
		p.storeNext()
	}
	var pulls []string
	for _, pull := range p.pulls {
		pulls = append(pulls, fmt.Sprintf("after %d", pull.GetAfter()[0].GetSeq()))
	}
	if len(p.pulls) != 2 {
		t.Fatalf("pulls %v: want the first window and the one asked for ahead only", pulls)
	}
	if p.puller.pull != nil || p.puller.applying != 0 {
		t.Fatalf("the pull is still open (%v) or batches are outstanding (%d)", p.puller.pull, p.puller.applying)
	}
}
