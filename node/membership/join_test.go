package membership

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node/membership/memnet"
)

// fakeClock is the join retry's clock in tests: time moves only by
// Advance, and every timer made is announced on armed with its duration.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	armed  chan time.Duration
}

type fakeTimer struct {
	at time.Time
	c  chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), armed: make(chan time.Duration, 64)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	t := &fakeTimer{at: c.now.Add(d), c: make(chan time.Time, 1)}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	c.armed <- d
	return t.c, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.timers, t)
		if i >= 0 {
			c.timers = slices.Delete(c.timers, i, i+1)
		}
		return i >= 0
	}
}

// Advance moves time on by d and fires the timers due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		t.c <- c.now
	}
	c.timers = kept
}

// nextArmed waits for the retry goroutine to arm its next timer.
func (c *fakeClock) nextArmed(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-c.armed:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("the join retry armed no timer within 10 s")
		return 0
	}
}

// quiet fails the test unless m's join retry goroutine ends without
// arming another timer. Only that goroutine arms them, and only Join
// starts it, so once it has returned none is armed later.
func (c *fakeClock) quiet(t *testing.T, m *Membership) {
	t.Helper()
	noneArmed := func() {
		t.Helper()
		select {
		case d := <-c.armed:
			t.Fatalf("a join retry timer of %v was armed; want the retries stopped", d)
		default:
		}
	}
	testwait.For(t, 10*time.Second, func() (bool, string) {
		noneArmed()
		m.seedsMu.Lock()
		defer m.seedsMu.Unlock()
		return !m.join.retrying, fmt.Sprintf("the join retry goroutine still runs: %+v", m.join)
	})
	noneArmed()
}

// joinPair is node a, whose join retries run on a fake clock with a
// rejoin interval of rejoin, and node b, unreachable from a until the
// test restores the link.
func joinPair(t *testing.T, rejoin time.Duration) (*memnet.Hub, *testNode, *testNode, *fakeClock) {
	t.Helper()
	hub := newHub(t)
	clk := newFakeClock()
	a := startNode(t, hub, "a", func(c *Config) { c.RejoinInterval, c.clock = rejoin, clk })
	b := startNode(t, hub, "b", func(c *Config) { c.RejoinInterval = -1 })
	hub.Cut("a", "b")
	return hub, a, b, clk
}

// TestJoin_RetriesWithBackoff: a Join whose seed cannot be reached is
// pending, with the seed and the error, and retried after 200 ms, 400 ms,
// 800 ms... up to the rejoin interval; once the seed is reachable the next
// retry joins it and the retries stop.
func TestJoin_RetriesWithBackoff(t *testing.T) {
	const rejoin = 10 * time.Second
	hub, a, b, clk := joinPair(t, rejoin)
	if _, err := a.m.Join([]string{b.tr.Addr()}); err == nil {
		t.Fatal("join over a cut link succeeded")
	}
	st := a.m.JoinStatus()
	if !st.Pending || !slices.Equal(st.Seeds, []string{b.tr.Addr()}) || st.Attempts != 1 || st.LastError == "" ||
		!st.LastAttempt.Equal(clk.Now()) || !st.NextAttempt.Equal(clk.Now().Add(JoinRetryMin)) {
		t.Fatalf("after a failed join: %+v; want pending on %s, 1 attempt, an error, next in %v", st, b.tr.Addr(), JoinRetryMin)
	}

	want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond,
		1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond, rejoin, rejoin}
	for i, w := range want {
		if got := clk.nextArmed(t); got != w {
			t.Fatalf("retry %d armed after %v, want %v", i+1, got, w)
		}
		if i == len(want)-1 {
			break
		}
		clk.Advance(w - time.Millisecond)
		if got := a.m.JoinStatus().Attempts; got != i+1 {
			t.Fatalf("1 ms before retry %d is due: %d attempts, want %d", i+1, got, i+1)
		}
		clk.Advance(time.Millisecond)
	}
	// 7 retries have failed (the last waits for the rejoin interval).
	st = a.m.JoinStatus()
	if !st.Pending || st.Attempts != len(want) || st.LastError == "" {
		t.Fatalf("after %d failed attempts: %+v", len(want), st)
	}

	hub.HealAll()
	clk.Advance(rejoin)
	waitStates(t, []*testNode{a, b}, []string{"a", "b"}, StateAlive)
	// The retry due now joins b, unless a's rejoin loop (on the real
	// clock, every rejoin) joined it first on a slow machine: then the
	// retry finds a peer up and ends without an attempt.
	testwait.For(t, 5*time.Second, func() (bool, string) {
		st := a.m.JoinStatus()
		retried := st.Attempts == len(want)+1 && st.LastError == ""
		return !st.Pending && (retried || st.Attempts == len(want)), fmt.Sprintf("join status %+v", st)
	})
	clk.quiet(t, a.m)
}

// TestJoin_PeerJoiningEndsRetries: while a's join is pending, b joins a;
// a no longer shows a pending join, and its next wake ends the retries
// without another attempt.
func TestJoin_PeerJoiningEndsRetries(t *testing.T) {
	hub, a, b, clk := joinPair(t, time.Minute)
	if _, err := a.m.Join([]string{b.tr.Addr()}); err == nil {
		t.Fatal("join over a cut link succeeded")
	}
	if got := clk.nextArmed(t); got != JoinRetryMin {
		t.Fatalf("first retry armed after %v, want %v", got, JoinRetryMin)
	}
	hub.HealAll()
	if _, err := b.m.Join([]string{a.tr.Addr()}); err != nil {
		t.Fatalf("b joins a: %v", err)
	}
	waitStates(t, []*testNode{a, b}, []string{"a", "b"}, StateAlive)
	if st := a.m.JoinStatus(); st.Pending || st.Attempts != 1 {
		t.Fatalf("a joined by b: %+v; want nothing pending after its 1 attempt", st)
	}
	clk.Advance(JoinRetryMin)
	clk.quiet(t, a.m)
	if st := a.m.JoinStatus(); st.Attempts != 1 {
		t.Fatalf("a retried after b joined it: %+v", st)
	}
}

// TestJoin_ShutdownStopsRetries: Shutdown ends a pending join's retries
// (and joins their goroutine) without waiting for the timer.
func TestJoin_ShutdownStopsRetries(t *testing.T) {
	_, a, b, clk := joinPair(t, time.Minute)
	if _, err := a.m.Join([]string{b.tr.Addr()}); err == nil {
		t.Fatal("join over a cut link succeeded")
	}
	clk.nextArmed(t)
	done := make(chan error, 1)
	go func() { done <- a.m.Shutdown() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown waited for the join retry's timer")
	}
}

// TestJoin_SuccessIsNotPending: a Join that reaches its seed leaves
// nothing pending and starts no retries.
func TestJoin_SuccessIsNotPending(t *testing.T) {
	hub, a, b, clk := joinPair(t, time.Minute)
	hub.HealAll()
	if _, err := a.m.Join([]string{b.tr.Addr()}); err != nil {
		t.Fatal(err)
	}
	if st := a.m.JoinStatus(); st.Pending || st.Attempts != 1 || st.LastError != "" || !st.NextAttempt.IsZero() {
		t.Fatalf("after a join that reached its seed: %+v", st)
	}
	clk.quiet(t, a.m)
}

// TestJoin_ErrorIsOneLine: the error of a Join that reached none of its
// seeds is one line, with memberlist's per-seed errors as
// JoinStatus.LastError shows them (memberlist's own text spans a line per
// seed), and still unwraps to memberlist's error.
func TestJoin_ErrorIsOneLine(t *testing.T) {
	hub, a, b, _ := joinPair(t, time.Minute)
	c := startNode(t, hub, "c", func(c *Config) { c.RejoinInterval = -1 })
	hub.Cut("a", "c")
	seeds := []string{b.tr.Addr(), c.tr.Addr()}
	_, err := a.m.Join(seeds)
	if err == nil || errors.Unwrap(err) == nil || !strings.Contains(errors.Unwrap(err).Error(), "\n") {
		t.Fatalf("join over cut links: %#v; want an error wrapping memberlist's multi-line one", err)
	}
	st := a.m.JoinStatus()
	want := fmt.Sprintf("membership: join %v: %s", seeds, st.LastError)
	if err.Error() != want || strings.Count(st.LastError, "; ") != 1 || strings.ContainsAny(err.Error(), "\n\t") {
		t.Fatalf("join error %q; want one line %q with the error of each of the 2 seeds", err.Error(), want)
	}
}
