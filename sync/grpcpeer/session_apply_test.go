package grpcpeer

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
)

// gatedLog is a Log whose ApplyBatch reports each call on started and
// waits for a token on release.
type gatedLog struct {
	lssync.Log
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

	job := func(seq int64) *applyJob {
		return &applyJob{batch: store.Batch{Ops: []store.Op{{Event: store.Event{OriginSeq: seq}}}}}
	}
	q.put(job(1))
	if got := (<-g.started).Ops[0].Event.OriginSeq; got != 1 {
		t.Fatalf("first stored: op %d", got)
	}
	q.put(job(2), job(3))
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
	lssync.Log
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
	job := &applyJob{batch: store.Batch{Ops: []store.Op{{Event: store.Event{OriginSeq: 4}}}}}
	q.put(job)
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
	q.put(&applyJob{batch: store.Batch{Ops: []store.Op{{Event: store.Event{OriginSeq: 1}}, {Event: store.Event{OriginSeq: 2}}}}, path: "push"})
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
	lssync.Log
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
func opsBatch(first, n int) *applyJob {
	ops := make([]store.Op, n)
	for i := range ops {
		ops[i].Event.OriginSeq = int64(first + i)
	}
	return &applyJob{batch: store.Batch{Ops: ops}}
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
	q.put(opsBatch(1, 1))
	firstCall := <-l.calls // the store holds the first batch
	q.put(opsBatch(2, half), opsBatch(2+half, half), opsBatch(2+2*half, 1))
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
