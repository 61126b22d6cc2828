package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	dto "github.com/prometheus/client_model/go"
)

// heldRequest is one request of runHeldBatch: it writes a meta row named
// key when write is set, then fails when fail is set. With abort set it
// then ends the transaction and fails, as SQLite does by itself on some
// errors (a full disk, an I/O error): through the writer's counted
// statements (abort dirty) or beside them (abort clean).
type heldRequest struct {
	key         string
	write, fail bool
	abort       string // "", "dirty" or "clean"
	quarantine  bool   // quarantine an item named key first
	runs        atomic.Int32
	err         error
}

var errRequestFailed = errors.New("request failed")

// runHeldBatch makes reqs share one transaction: a first request holds the
// writer until all of them are queued behind it.
func runHeldBatch(t *testing.T, s *Store, reqs []*heldRequest) {
	t.Helper()
	ctx := context.Background()
	release, holding := make(chan struct{}), make(chan struct{})
	var hold sync.Once // a rerun runs the holding request again
	firstDone := make(chan error, 1)
	go func() {
		firstDone <- s.write(ctx, func(*writeTx) error {
			hold.Do(func() { close(holding) })
			<-release
			return nil
		})
	}()
	<-holding
	done := make(chan struct{}, len(reqs))
	for i, r := range reqs {
		go func() {
			r.err = s.write(ctx, func(w *writeTx) error {
				r.runs.Add(1)
				if r.quarantine {
					if err := s.quarantine(w, &ApplyResult{}, reasonInvalid, "", 0, r.key, errors.New("test item"), nil, false); err != nil {
						return err
					}
				}
				if r.write {
					if _, err := w.tx.ExecContext(w.ctx, `INSERT OR REPLACE INTO lsnode_meta (key, value) VALUES (?, 'x')`, r.key); err != nil {
						return err
					}
				}
				switch r.abort {
				case "dirty":
					_, err := w.tx.ExecContext(w.ctx, "ROLLBACK")
					return errors.Join(errRequestFailed, err)
				case "clean":
					_, err := w.s.writer.conn.ExecContext(w.ctx, "ROLLBACK")
					return errors.Join(errRequestFailed, err)
				}
				if r.fail {
					return errRequestFailed
				}
				return nil
			})
			done <- struct{}{}
		}()
		waitQueued(t, s, i+1) // queue in order
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatalf("holding request: %v", err)
	}
	for range reqs {
		<-done
	}
}

func metaHeld(t *testing.T, s *Store, key string) bool {
	t.Helper()
	var n int
	if err := s.readDB.QueryRow(`SELECT count(*) FROM lsnode_meta WHERE key = ?`, key).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// TestWriter_DirtyFailureFailsOnlyItsRequest: requests sharing a
// transaction run without savepoints; one that fails after writing makes
// the writer roll back and run the batch again with savepoints, so its
// write is undone and the others' writes commit.
func TestWriter_DirtyFailureFailsOnlyItsRequest(t *testing.T) {
	s, _ := openTestStore(t)
	reqs := []*heldRequest{
		{key: "test_before", write: true},
		{key: "test_dirty", write: true, fail: true},
		{key: "test_after", write: true},
	}
	runHeldBatch(t, s, reqs)
	for _, r := range reqs {
		if r.fail != errors.Is(r.err, errRequestFailed) || (!r.fail && r.err != nil) {
			t.Errorf("%s: error %v", r.key, r.err)
		}
		if held := metaHeld(t, s, r.key); held == r.fail {
			t.Errorf("%s stored = %v, want %v", r.key, held, !r.fail)
		}
	}
	// The rerun repeats the requests up to the dirty one; the one after it
	// first runs in the rerun.
	if got := []int32{reqs[0].runs.Load(), reqs[1].runs.Load(), reqs[2].runs.Load()}; got[0] != 2 || got[1] != 2 || got[2] != 1 {
		t.Fatalf("runs %v, want [2 2 1]", got)
	}
}

// TestWriter_CleanFailureNeedsNoRerun: a request that fails before writing
// anything costs the others nothing: every request runs once.
func TestWriter_CleanFailureNeedsNoRerun(t *testing.T) {
	s, _ := openTestStore(t)
	reqs := []*heldRequest{
		{key: "test_before", write: true},
		{key: "test_clean", fail: true},
		{key: "test_after", write: true},
	}
	runHeldBatch(t, s, reqs)
	for _, r := range reqs {
		if r.runs.Load() != 1 {
			t.Errorf("%s ran %d times, want once", r.key, r.runs.Load())
		}
		if r.fail != errors.Is(r.err, errRequestFailed) {
			t.Errorf("%s: error %v", r.key, r.err)
		}
	}
	if !metaHeld(t, s, "test_before") || !metaHeld(t, s, "test_after") {
		t.Fatal("the successful requests' writes are missing")
	}
}

// TestWriter_TransactionLostMidBatch: when SQLite ends the transaction by
// itself after a request's error, the statements of the requests after it
// would each commit on their own. The request that lost it is answered
// with its error and the others run again without it: every caller's
// answer matches the store.
func TestWriter_TransactionLostMidBatch(t *testing.T) {
	for _, abort := range []string{"dirty", "clean"} {
		t.Run(abort, func(t *testing.T) {
			s, _ := openTestStore(t)
			reqs := []*heldRequest{
				{key: "test_before", write: true},
				{key: "test_lost", abort: abort, fail: true},
				{key: "test_after", write: true},
			}
			runHeldBatch(t, s, reqs)
			for _, r := range reqs {
				if r.fail != (r.err != nil) {
					t.Errorf("%s: answered %v; only the request that lost the transaction fails", r.key, r.err)
				}
				if r.write && metaHeld(t, s, r.key) != (r.err == nil) {
					t.Errorf("%s: stored %v, answered %v", r.key, metaHeld(t, s, r.key), r.err)
				}
			}
			// The writer goes on: a later write commits.
			if err := s.write(context.Background(), func(w *writeTx) error {
				_, err := w.tx.ExecContext(w.ctx, `INSERT INTO lsnode_meta (key, value) VALUES ('test_later', 'x')`)
				return err
			}); err != nil || !metaHeld(t, s, "test_later") {
				t.Fatalf("a write after the lost transaction: %v", err)
			}
		})
	}
}

// TestWriter_QuarantineReportedOnceCommitted: a batch run again after a
// dirty failure quarantines its items again; the metric and the log count
// each once, after the commit.
func TestWriter_QuarantineReportedOnceCommitted(t *testing.T) {
	s, _ := openTestStore(t)
	reqs := []*heldRequest{
		{key: "test_quarantined", quarantine: true},
		{key: "test_dirty", write: true, fail: true},
	}
	runHeldBatch(t, s, reqs)
	if reqs[0].err != nil || reqs[0].runs.Load() != 2 {
		t.Fatalf("quarantining request: %v, %d runs; want a rerun", reqs[0].err, reqs[0].runs.Load())
	}
	var m dto.Metric
	if err := s.metrics.quarantined.WithLabelValues(reasonInvalid).Write(&m); err != nil {
		t.Fatal(err)
	}
	if got := m.GetCounter().GetValue(); got != 1 {
		t.Fatalf("quarantine metric = %v, want 1", got)
	}
	q, err := s.Quarantine(context.Background(), 10)
	if err != nil || len(q) != 1 {
		t.Fatalf("quarantine rows %v, %v; want 1", q, err)
	}
}

// waitQueued polls until n requests wait in the writer's queue.
func waitQueued(t *testing.T, s *Store, n int) {
	t.Helper()
	testwait.For(t, 10*time.Second, func() (bool, string) {
		queued := len(s.writes)
		return queued >= n, fmt.Sprintf("%d requests queued, want %d", queued, n)
	})
}

// TestWriter_QueuedAfterCloseIsAnswered: a caller that found the store
// open may queue its request only after Close has drained the queue and
// the writer has returned (its select picks the send over the closed stop
// channel). It must be told ErrClosed, not wait forever.
func TestWriter_QueuedAfterCloseIsAnswered(t *testing.T) {
	s, _ := openTestStore(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	req := &writeReq{ctx: context.Background(), fn: func(*writeTx) error { return nil }, done: make(chan error, 1)}
	s.writes <- req // what write does when its select picks the send
	answered := make(chan error, 1)
	go func() { answered <- s.await(req) }()
	select {
	case err := <-answered:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("err = %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a request queued after the writer returned is never answered")
	}
}
