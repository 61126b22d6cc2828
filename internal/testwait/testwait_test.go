package testwait

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// checks runs Poll in a bubble with a cond that holds from its n-th
// check (never when n is 0), and returns Poll's answer and when, from
// the start, each check ran.
func checks(t *testing.T, timeout time.Duration, n int, opts ...Option) (ok bool, detail string, at []time.Duration) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ok, detail = Poll(timeout, func() (bool, string) {
			at = append(at, time.Since(start))
			return len(at) == n, fmt.Sprintf("check %d", len(at))
		}, opts...)
	})
	return ok, detail, at
}

func ms(ds ...int) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = time.Duration(d) * time.Millisecond
	}
	return out
}

func TestPoll_HoldingAtOnceChecksOnce(t *testing.T) {
	ok, detail, at := checks(t, time.Second, 1)
	if !ok || detail != "check 1" || !slices.Equal(at, ms(0)) {
		t.Fatalf("Poll = %v %q, checks at %v; want true after one check at 0", ok, detail, at)
	}
}

func TestPoll_BacksOffTo50ms(t *testing.T) {
	ok, _, at := checks(t, time.Second, 10)
	// Pauses 1, 2, 4, 8, 16, 32, then 50 ms.
	if want := ms(0, 1, 3, 7, 15, 31, 63, 113, 163, 213); !ok || !slices.Equal(at, want) {
		t.Fatalf("Poll = %v, checks at %v; want true, at %v", ok, at, want)
	}
}

func TestPoll_TimeoutReportsTheLastDetailAfterACheckAtTheDeadline(t *testing.T) {
	ok, detail, at := checks(t, 100*time.Millisecond, 0)
	if want := ms(0, 1, 3, 7, 15, 31, 63, 100); ok || !slices.Equal(at, want) || detail != fmt.Sprintf("check %d", len(want)) {
		t.Fatalf("Poll = %v %q, checks at %v; want false with the last detail, checks at %v", ok, detail, at, want)
	}
}

func TestPoll_EveryKeepsItsInterval(t *testing.T) {
	_, _, at := checks(t, 70*time.Millisecond, 0, Every(20*time.Millisecond))
	if want := ms(0, 20, 40, 60, 70); !slices.Equal(at, want) {
		t.Fatalf("checks at %v, want %v", at, want)
	}
}

// fatalTB records what For and Until would fail the test with.
type fatalTB struct {
	testing.TB
	failed string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

func TestFor_FailsWithTheLastDetail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tb := &fatalTB{TB: t}
		n := 0
		For(tb, time.Second, func() (bool, string) { n++; return false, fmt.Sprintf("saw %d", n) })
		if want := fmt.Sprintf("timed out after 1s: saw %d", n); tb.failed != want {
			t.Fatalf("For failed with %q, want %q", tb.failed, want)
		}
		tb.failed = ""
		For(tb, time.Second, func() (bool, string) { return true, "" })
		if tb.failed != "" {
			t.Fatalf("For failed on a holding condition: %q", tb.failed)
		}
	})
}

func TestUntil_FailsNamingWhatItWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tb := &fatalTB{TB: t}
		Until(tb, 5*time.Second, "the second event", func() bool { return false })
		if want := "timed out after 5s: waiting for the second event"; tb.failed != want {
			t.Fatalf("Until failed with %q, want %q", tb.failed, want)
		}
	})
}
