package membership

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// JoinRetryMin is the wait before the first retry of a Join that reached
// no seed. Each further retry waits twice as long as the one before, up
// to the rejoin interval: nodes started together join each other within
// a second, and a seed that stays down costs one attempt per interval.
const JoinRetryMin = 200 * time.Millisecond

// JoinStatus is the state of this node's joins through Join.
type JoinStatus struct {
	// Pending is true from a Join that reached none of its seeds until a
	// later attempt reaches one or another member joins this node (then
	// the retries stop). A node that never called Join has none pending.
	Pending bool
	// Seeds are every address given to Join, in order.
	Seeds []string
	// Attempts counts the attempts since the latest Join call, that call
	// included.
	Attempts int
	// LastError is why the latest attempt failed; "" when it succeeded.
	LastError string
	// LastAttempt is when the latest attempt ended; NextAttempt, while
	// Pending, when the next one starts.
	LastAttempt, NextAttempt time.Time
}

// joinState is the Join bookkeeping behind JoinStatus, guarded by
// Membership.seedsMu with the seeds.
type joinState struct {
	pending  bool
	retrying bool // the retry goroutine runs
	attempts int
	lastErr  string
	last     time.Time
	next     time.Time
	backoff  time.Duration // the wait before the next attempt
}

// clock gives the join retry its time and timers; tests replace it
// (Config.clock).
type clock interface {
	Now() time.Time
	NewTimer(d time.Duration) (c <-chan time.Time, stop func() bool)
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// Join contacts the given seeds (host:port, or host with the bind port)
// and merges their view of the cluster. It returns how many it reached.
// The seeds are remembered: while this node has no live peer, the rejoin
// loop tries them again. A Join that reaches none of them is retried in
// the background, JoinRetryMin later, then after twice as long each time
// up to the rejoin interval, until an attempt reaches one or another
// member joins this node; JoinStatus shows the retries. Its error is
// one line, as JoinStatus.LastError, and unwraps to memberlist's.
func (m *Membership) Join(addrs []string) (int, error) {
	m.lifecycle.Lock()
	shut := m.shut
	m.lifecycle.Unlock()
	if shut {
		return 0, ErrShutdown
	}
	m.seedsMu.Lock()
	m.seeds = appendNew(m.seeds, addrs...)
	m.join.attempts = 0
	m.seedsMu.Unlock()
	n, err := m.ml.Join(addrs)
	if m.joinAttempted(err) {
		m.startJoinRetry()
	}
	if err != nil {
		return n, &joinError{seeds: slices.Clone(addrs), err: err}
	}
	return n, nil
}

// joinError is a Join that reached none of its seeds. Its text is one
// line, memberlist's error cleaned as JoinStatus.LastError shows it, so a
// log line holding it stays one line; Unwrap gives memberlist's error.
type joinError struct {
	seeds []string
	err   error
}

func (e *joinError) Error() string {
	return fmt.Sprintf("membership: join %v: %s", e.seeds, errorLine(e.err))
}

func (e *joinError) Unwrap() error { return e.err }

// JoinStatus reports the joins through Join: pending while a failed one
// is being retried and no peer is up.
func (m *Membership) JoinStatus() JoinStatus {
	up := m.peerUp()
	m.seedsMu.Lock()
	defer m.seedsMu.Unlock()
	j := m.join
	st := JoinStatus{Pending: j.pending && !up, Seeds: slices.Clone(m.seeds), Attempts: j.attempts,
		LastError: j.lastErr, LastAttempt: j.last}
	if st.Pending {
		st.NextAttempt = j.next
	}
	return st
}

// joinAttempted records the outcome of an attempt. After a failure it
// schedules the next attempt and reports whether the retry goroutine must
// be started (it is not running yet).
func (m *Membership) joinAttempted(err error) (startRetry bool) {
	now := m.cfg.clock.Now()
	m.seedsMu.Lock()
	defer m.seedsMu.Unlock()
	j := &m.join
	j.attempts++
	j.last = now
	if err == nil {
		j.pending, j.lastErr = false, ""
		return false
	}
	j.lastErr = errorLine(err)
	if !j.pending {
		j.pending, j.backoff = true, JoinRetryMin
	} else {
		j.backoff = min(2*j.backoff, m.maxJoinBackoff())
	}
	j.next = now.Add(j.backoff)
	if j.retrying {
		return false
	}
	j.retrying = true
	return true
}

// maxJoinBackoff is the longest wait between two attempts: the rejoin
// interval, or its default when the rejoin loop is off.
func (m *Membership) maxJoinBackoff() time.Duration {
	if m.cfg.RejoinInterval > 0 {
		return m.cfg.RejoinInterval
	}
	return DefaultRejoinInterval
}

// startJoinRetry starts the retry goroutine, unless Shutdown has begun
// (lifecycle orders the start before Shutdown's wait).
func (m *Membership) startJoinRetry() {
	m.lifecycle.Lock()
	defer m.lifecycle.Unlock()
	if m.shut {
		return
	}
	m.goFunc(m.runJoinRetry)
}

// runJoinRetry retries the pending join at the scheduled times until it
// is no longer pending, Leave is called or Shutdown stops it.
func (m *Membership) runJoinRetry() {
	for {
		wait, ok := m.nextJoinAttempt()
		if !ok {
			return
		}
		c, stop := m.cfg.clock.NewTimer(wait)
		select {
		case <-m.stop:
			stop()
			return
		case <-c:
		}
		if m.left.Load() || m.peerUp() {
			m.endJoinRetry()
			continue
		}
		m.seedsMu.Lock()
		seeds := slices.Clone(m.seeds)
		m.seedsMu.Unlock()
		n, err := m.ml.Join(seeds)
		m.joinAttempted(err)
		if err != nil {
			m.log.Debug("gossip join retry failed", "seeds", seeds, "err", errorLine(err))
			continue
		}
		m.log.Info("gossip joined", "seeds", seeds, "reached", n, "attempts", m.JoinStatus().Attempts)
	}
}

// nextJoinAttempt is the wait until the next attempt; false, with the
// goroutine marked stopped, when no join is pending.
func (m *Membership) nextJoinAttempt() (time.Duration, bool) {
	m.seedsMu.Lock()
	defer m.seedsMu.Unlock()
	if !m.join.pending {
		m.join.retrying = false
		return 0, false
	}
	return max(0, m.join.next.Sub(m.cfg.clock.Now())), true
}

// endJoinRetry stops the retries without an attempt: this node left, or
// a peer reached it first.
func (m *Membership) endJoinRetry() {
	m.seedsMu.Lock()
	m.join.pending = false
	m.seedsMu.Unlock()
}

// peerUp reports whether some member other than this node is up.
func (m *Membership) peerUp() bool {
	for _, mem := range m.Members() {
		if mem.Name != m.cfg.Name && mem.State.Up() {
			return true
		}
	}
	return false
}

// errorLine is err on one line: memberlist's join error lists the error
// of each address on lines of its own, which are joined with "; ".
func errorLine(err error) string {
	if multi, ok := err.(interface{ WrappedErrors() []error }); ok && len(multi.WrappedErrors()) > 0 {
		parts := make([]string, 0, len(multi.WrappedErrors()))
		for _, e := range multi.WrappedErrors() {
			parts = append(parts, errorLine(e))
		}
		return strings.Join(parts, "; ")
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}
