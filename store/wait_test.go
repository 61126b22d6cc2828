package store

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// The tests run in synctest bubbles: synctest.Wait returns once the
// waiter is blocked in Wait (and, after a commit, once the commit has
// reached it and it is blocked again), so "not woken" is checked with
// nothing left in flight, and timeouts pass in the bubble's time.

func TestWait_WokenByCommit(t *testing.T) { synctest.Test(t, testWaitWokenByCommit) }

func testWaitWokenByCommit(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	seen := mustAppend(t, s, note("a", "b"))
	const timeout = 20 * time.Second
	type result struct {
		res      ListResult
		timedOut bool
		err      error
		took     time.Duration
	}
	done := make(chan result, 1)
	go func() {
		start := time.Now()
		res, timedOut, err := s.Wait(ctx, Filter{ToAgent: "b", SinceEventID: seen.ID}, timeout)
		done <- result{res, timedOut, err, time.Since(start)}
	}()
	// Not woken by a commit that does not match.
	synctest.Wait()
	mustAppend(t, s, note("a", "c"))
	synctest.Wait()
	select {
	case r := <-done:
		t.Fatalf("woke on a non-matching commit: %+v", r)
	default:
	}
	want := mustAppend(t, s, note("a", "b"))
	select {
	case r := <-done:
		if r.err != nil || r.timedOut || len(r.res.Events) != 1 || r.res.Events[0].ID != want.ID {
			t.Fatalf("wait = %v %v %v", ids(r.res.Events), r.timedOut, r.err)
		}
		if r.took > timeout/4 {
			t.Fatalf("wait took %v: not woken by the commit", r.took)
		}
	case <-time.After(timeout / 2):
		t.Fatal("wait was not woken by a matching commit")
	}
}

func TestWait_WokenByApply(t *testing.T) { synctest.Test(t, testWaitWokenByApply) }

func testWaitWokenByApply(t *testing.T) {
	_, ops := source(t, 1)
	a, _ := openReplica(t, repA)
	done := make(chan []Event, 1)
	go func() {
		res, _, _ := a.Wait(context.Background(), Filter{ToAgent: "a", AfterSeq: 0, Order: "asc"}, 20*time.Second)
		done <- res.Events
	}()
	synctest.Wait()
	mustApply(t, a, Batch{Ops: ops})
	select {
	case evs := <-done:
		if len(evs) != 1 || evs[0].ID != ops[0].Event.ID {
			t.Fatalf("wait = %v", ids(evs))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not woken by an applied op")
	}
}

func TestWait_Timeout(t *testing.T) { synctest.Test(t, testWaitTimeout) }

func testWaitTimeout(t *testing.T) {
	s, _ := openTestStore(t)
	last := mustAppend(t, s, note("a", "b"))
	start := time.Now()
	res, timedOut, err := s.Wait(context.Background(), Filter{SinceEventID: last.ID}, 60*time.Millisecond)
	if err != nil || !timedOut || res.Events == nil || len(res.Events) != 0 {
		t.Fatalf("wait = %v %v %v", res.Events, timedOut, err)
	}
	if took := time.Since(start); took < 60*time.Millisecond {
		t.Fatalf("returned after %v, before the timeout", took)
	}
	// timeout 0: exactly one check.
	res, timedOut, err = s.Wait(context.Background(), Filter{}, 0)
	if err != nil || timedOut || len(res.Events) != 1 {
		t.Fatalf("zero timeout with a match: %v %v %v", ids(res.Events), timedOut, err)
	}
	// Without a cursor, history matches at once, oldest first.
	mustAppend(t, s, note("a", "b"))
	res, _, _ = s.Wait(context.Background(), Filter{ToAgent: "b"}, time.Second)
	if len(res.Events) != 2 || res.Events[0].ID != last.ID {
		t.Fatalf("historic wait = %v", ids(res.Events))
	}
	// A cancelled context is an error, not a timeout.
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := s.Wait(cctx, Filter{SinceEventID: last.ID, ToAgent: "nobody"}, time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait err = %v", err)
	}
}

func TestWait_PortableCursor(t *testing.T) { synctest.Test(t, testWaitPortableCursor) }

func testWaitPortableCursor(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	mustAppend(t, s, note("a", "b"))
	res, err := s.List(ctx, Filter{ToAgent: "b", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan ListResult, 1)
	go func() {
		r, _, _ := s.Wait(ctx, Filter{ToAgent: "b", Cursor: res.Cursor}, 20*time.Second)
		done <- r
	}()
	synctest.Wait()
	next := mustAppend(t, s, note("a", "b"))
	select {
	case r := <-done:
		if len(r.Events) != 1 || r.Events[0].ID != next.ID {
			t.Fatalf("cursor wait = %v", ids(r.Events))
		}
		// Resuming with its cursor waits again (nothing new).
		_, timedOut, err := s.Wait(ctx, Filter{ToAgent: "b", Cursor: r.Cursor}, 30*time.Millisecond)
		if err != nil || !timedOut {
			t.Fatalf("resume: timedOut %v err %v", timedOut, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cursor wait not woken")
	}
}

func TestWait_ClosedStore(t *testing.T) { synctest.Test(t, testWaitClosedStore) }

func testWaitClosedStore(t *testing.T) {
	s, _ := openReplica(t, repA)
	last := mustAppend(t, s, note("a", "b"))
	done := make(chan error, 1)
	go func() {
		_, _, err := s.Wait(context.Background(), Filter{SinceEventID: last.ID}, 20*time.Second)
		done <- err
	}()
	synctest.Wait()
	s.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiter outlived Close")
	}
}
