package lssync

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

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
	p := &behindPair{t: t, puller: newLink(cfg, dst, true, nil), source: newLink(cfg, StoreLog(src), false, nil), dst: dst}
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
	out, err := p.puller.Stored(job, res, err, queueT0)
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

// gatedLog is a Log whose ApplyBatch reports each call on started and
// waits for a token on release.
type gatedLog struct {
	Log
	started chan store.Batch
	release chan struct{}
}

func (g gatedLog) ApplyBatch(ctx context.Context, b store.Batch) (store.ApplyResult, error) {
	g.started <- b
	<-g.release
	return store.ApplyResult{Applied: len(b.Ops)}, nil
}

// TestApplyQueue_InOrderAndBounded: the applier stores jobs one at a
// time in the order they were put, reports each, and the queue says it is
// full (the session then takes no frame) when size jobs wait behind the
// one being stored.
func TestApplyQueue_InOrderAndBounded(t *testing.T) {
	const size = 2
	g := gatedLog{started: make(chan store.Batch), release: make(chan struct{})}
	q := newApplyQueue(size, g, nil)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); q.run(ctx) }()
	defer func() { cancel(); <-stopped }()

	job := func(seq int64) *QueuedBatch {
		return &QueuedBatch{batch: store.Batch{Ops: []store.Op{{Event: store.Event{OriginSeq: seq}}}}}
	}
	q.put([]*QueuedBatch{job(1)})
	if got := (<-g.started).Ops[0].Event.OriginSeq; got != 1 {
		t.Fatalf("first stored: op %d", got)
	}
	q.put([]*QueuedBatch{job(2), job(3)})
	if !q.full() {
		t.Fatalf("%d jobs wait behind the one being stored: the queue should be full", size)
	}
	for want := int64(1); want <= 3; want++ {
		g.release <- struct{}{}
		done := <-q.done
		if got := done.job.batch.Ops[0].Event.OriginSeq; got != want || done.res.Applied != 1 {
			t.Fatalf("outcome %d: job of op %d, %+v", want, got, done.res)
		}
		if want < 3 {
			if got := (<-g.started).Ops[0].Event.OriginSeq; got != want+1 {
				t.Fatalf("stored op %d after op %d", got, want)
			}
		}
	}
	if q.full() {
		t.Fatal("the queue is full after every job was stored")
	}
}

// checkedLog is a Log that takes batches validated ahead:
// ApplyCheckedBatches reports each batch of each call; ApplyBatch must not
// be called.
type checkedLog struct {
	Log
	checked chan store.CheckedBatch
}

func (c checkedLog) ApplyCheckedBatches(_ context.Context, cs []store.CheckedBatch) ([]store.ApplyResult, error) {
	res := make([]store.ApplyResult, len(cs))
	for i, b := range cs {
		c.checked <- b
		res[i] = store.ApplyResult{Applied: len(b.Batch().Ops)}
	}
	return res, nil
}

func (checkedLog) ApplyBatch(context.Context, store.Batch) (store.ApplyResult, error) {
	return store.ApplyResult{}, errors.New("ApplyBatch called on a log that takes checked batches")
}

// TestApplyQueue_ValidatesWhenPut: with a Log that takes batches
// validated ahead, put validates each batch and the applier only writes
// it, through ApplyCheckedBatches.
func TestApplyQueue_ValidatesWhenPut(t *testing.T) {
	l := checkedLog{checked: make(chan store.CheckedBatch, 1)}
	q := newApplyQueue(1, l, nil)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); q.run(ctx) }()
	defer func() { cancel(); <-stopped }()
	job := &QueuedBatch{batch: store.Batch{Ops: []store.Op{{Event: store.Event{OriginSeq: 4}}}}}
	q.put([]*QueuedBatch{job})
	if job.checked == nil {
		t.Fatal("put did not validate the batch")
	}
	if got := (<-l.checked).Batch().Ops[0].Event.OriginSeq; got != 4 {
		t.Fatalf("ApplyCheckedBatches got op %d, want 4", got)
	}
	if done := <-q.done; done.err != nil || done.res.Applied != 1 {
		t.Fatalf("outcome %+v, %v", done.res, done.err)
	}
}

// TestApplyQueue_CountsWhatTheStoreTookWhenTheSessionEnds: a batch the
// store takes while its session ends is counted in the sync metrics,
// though the loop never takes its outcome (the metrics must agree with
// the store's own counts).
func TestApplyQueue_CountsWhatTheStoreTookWhenTheSessionEnds(t *testing.T) {
	reg := prometheus.NewRegistry()
	g := gatedLog{started: make(chan store.Batch), release: make(chan struct{})}
	q := newApplyQueue(1, g, newMetrics(reg))
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); q.run(ctx) }()
	q.put([]*QueuedBatch{{batch: store.Batch{Ops: []store.Op{{Event: store.Event{OriginSeq: 1}}, {Event: store.Event{OriginSeq: 2}}}}}})
	<-g.started
	cancel() // the session ends while the store holds the batch
	g.release <- struct{}{}
	<-stopped
	var m dto.Metric
	if err := q.m.ops.WithLabelValues("push", "applied").Write(&m); err != nil {
		t.Fatal(err)
	}
	if got := m.GetCounter().GetValue(); got != 2 {
		t.Fatalf("lsnode_sync_ops_total{path=push,result=applied} = %v, want the 2 ops the store took", got)
	}
}

// holdingLog takes batches validated ahead and reports each
// ApplyCheckedBatches call; every call waits for release.
type holdingLog struct {
	Log
	calls   chan []store.CheckedBatch
	release chan struct{}
}

func (h holdingLog) ApplyCheckedBatches(_ context.Context, cs []store.CheckedBatch) ([]store.ApplyResult, error) {
	h.calls <- cs
	<-h.release
	res := make([]store.ApplyResult, len(cs))
	for i, c := range cs {
		res[i] = store.ApplyResult{Applied: len(c.Batch().Ops)}
	}
	return res, nil
}

// opsBatch is a queued batch of n ops, the first with origin seq first.
func opsBatch(first, n int) *QueuedBatch {
	ops := make([]store.Op, n)
	for i := range ops {
		ops[i].Event.OriginSeq = int64(first + i)
	}
	return &QueuedBatch{batch: store.Batch{Ops: ops}}
}

// TestApplyQueue_CoalescesWaitingBatches: the validated batches that
// queue while the store writes are written together in the next call, up
// to coalesceOps ops, and every batch gets its own outcome, in order.
func TestApplyQueue_CoalescesWaitingBatches(t *testing.T) {
	l := holdingLog{calls: make(chan []store.CheckedBatch), release: make(chan struct{})}
	q := newApplyQueue(8, l, nil)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); q.run(ctx) }()
	defer func() { cancel(); <-stopped }()

	half := coalesceOps / 2
	q.put([]*QueuedBatch{opsBatch(1, 1)})
	firstCall := <-l.calls // the store holds the first batch
	q.put([]*QueuedBatch{opsBatch(2, half), opsBatch(2+half, half), opsBatch(2+2*half, 1)})
	l.release <- struct{}{}
	secondCall := <-l.calls
	l.release <- struct{}{}
	thirdCall := <-l.calls
	l.release <- struct{}{}

	var sizes [][]int
	for _, call := range [][]store.CheckedBatch{firstCall, secondCall, thirdCall} {
		var s []int
		for _, c := range call {
			s = append(s, len(c.Batch().Ops))
		}
		sizes = append(sizes, s)
	}
	if want := [][]int{{1}, {half, half}, {1}}; fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Fatalf("batches per call %v, want %v", sizes, want)
	}
	for _, wantFirst := range []int64{1, 2, 2 + int64(half), 2 + 2*int64(half)} {
		done := <-q.done
		if got := done.job.batch.Ops[0].Event.OriginSeq; got != wantFirst || done.err != nil || done.res.Applied != len(done.job.batch.Ops) {
			t.Fatalf("outcome for the batch from op %d: got the batch from op %d, %+v, %v", wantFirst, got, done.res, done.err)
		}
	}
}
