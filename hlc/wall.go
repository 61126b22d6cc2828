package hlc

import (
	"sync"
	"time"
)

// WallClock is the physical clock a Clock reads. Implementations must be
// safe for concurrent use and must not call back into the Clock.
type WallClock interface {
	Now() time.Time
}

// SystemClock is the machine's clock. It is the only place in this package
// that reads real time; everything else receives a WallClock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// ManualClock is a WallClock that moves only when told to, for tests and
// simulations. It is safe for concurrent use. Set may move it backwards,
// which is how tests model a wall clock that steps back.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a ManualClock that reads t until moved.
func NewManualClock(t time.Time) *ManualClock {
	return &ManualClock{now: t}
}

// Now returns the clock's current time.
func (m *ManualClock) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Set moves the clock to t, forwards or backwards.
func (m *ManualClock) Set(t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = t
}

// Advance moves the clock by d; a negative d moves it backwards.
func (m *ManualClock) Advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
}
