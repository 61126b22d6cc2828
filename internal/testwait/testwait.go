package testwait

import (
	"testing"
	"time"
)

const (
	// firstInterval is the pause after the first check that fails.
	firstInterval = time.Millisecond
	// maxInterval is where the pause stops doubling.
	maxInterval = 50 * time.Millisecond
)

// An Option changes how a wait paces its checks.
type Option func(*pace)

type pace struct {
	first, max time.Duration
}

// Every checks every d, without backing off: for a wait whose length is
// the figure a test reports, so the figure is off by at most d.
func Every(d time.Duration) Option {
	return func(p *pace) { p.first, p.max = d, d }
}

// Poll checks cond until it reports ok or timeout passes, and returns
// whether it held and cond's last detail. It always checks at least
// once, and once more at the deadline.
func Poll(timeout time.Duration, cond func() (ok bool, detail string), opts ...Option) (bool, string) {
	p := pace{first: firstInterval, max: maxInterval}
	for _, o := range opts {
		o(&p)
	}
	deadline := time.Now().Add(timeout)
	for interval := p.first; ; interval = min(2*interval, p.max) {
		ok, detail := cond()
		if ok {
			return true, detail
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, detail
		}
		time.Sleep(min(interval, left))
	}
}

// For checks cond until it reports ok; if timeout passes first, it fails
// tb with cond's last detail.
func For(tb testing.TB, timeout time.Duration, cond func() (ok bool, detail string), opts ...Option) {
	tb.Helper()
	if ok, detail := Poll(timeout, cond, opts...); !ok {
		tb.Fatalf("timed out after %v: %s", timeout, detail)
	}
}

// Until checks cond until it holds; if timeout passes first, it fails tb
// naming what it waited for.
func Until(tb testing.TB, timeout time.Duration, what string, cond func() bool, opts ...Option) {
	tb.Helper()
	For(tb, timeout, func() (bool, string) { return cond(), "waiting for " + what }, opts...)
}
