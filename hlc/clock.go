package hlc

import (
	"math"
	"sync"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
)

// DefaultMaxOffset is the skew bound used when NewClock is given none: a
// remote stamp more than this far ahead of the local wall clock is not
// adopted.
const DefaultMaxOffset = 500 * time.Millisecond

// Clock is a hybrid logical clock bound to one replica. It is safe for
// concurrent use.
type Clock struct {
	wall      WallClock
	replica   string
	maxOffset time.Duration

	mu struct {
		sync.Mutex
		ms      int64  // wall part of the last issued, adopted or seeded stamp
		counter uint32 // logical part of the same stamp
	}
}

// Observation reports what Observe did with a remote stamp.
type Observation struct {
	// Offset is the remote stamp's wall time minus the local wall time at
	// the moment of observation; positive means the remote is ahead. For
	// a stamp of an old op this mostly measures the op's age, not skew.
	Offset time.Duration
	// Adopted is true when the remote stamp moved the clock forward.
	Adopted bool
	// Beyond is true when the remote stamp is more than MaxOffset ahead of
	// local wall time, so it was not adopted.
	Beyond bool
}

// NewClock returns a clock for replica that reads wall. A maxOffset <= 0
// means DefaultMaxOffset. The clock starts at (0, 0): callers restore it
// with SeedOwn before issuing stamps. NewClock panics if wall is nil or
// replica cannot appear in a stamp (empty, a newline, invalid UTF-8),
// since such a clock could only issue stamps that Parse rejects.
func NewClock(wall WallClock, replica string, maxOffset time.Duration) *Clock {
	if wall == nil {
		panic("hlc: NewClock with a nil WallClock")
	}
	if !validReplica(replica) {
		panic("hlc: NewClock with invalid replica id " + pyrepr.String(replica))
	}
	if maxOffset <= 0 {
		maxOffset = DefaultMaxOffset
	}
	return &Clock{wall: wall, replica: replica, maxOffset: maxOffset}
}

// Tick issues a stamp for a local op. It is strictly greater than every
// stamp this clock issued, adopted or was seeded with: the wall time if it
// moved past the last stamp's, else the last stamp's millisecond with the
// counter plus one, else, when the counter is exhausted, the next
// millisecond with counter 0. A wall clock that steps back never makes
// Tick step back. Tick does not allocate.
func (c *Clock) Tick() Timestamp {
	now := c.wall.Now().UnixMilli()
	c.mu.Lock()
	switch {
	case now > c.mu.ms:
		c.mu.ms, c.mu.counter = now, 0
	case c.mu.counter < MaxCounter:
		c.mu.counter++
	default:
		c.mu.ms, c.mu.counter = c.mu.ms+1, 0
	}
	ms, counter := c.mu.ms, c.mu.counter
	c.mu.Unlock()
	return Timestamp{WallMS: ms, Counter: counter, Replica: c.replica}
}

// Observe absorbs the stamp of an op received from another replica, so
// that later Ticks sort after it. The clock adopts the remote (ms,
// counter) when it is greater than its own and the remote wall time is at
// most MaxOffset ahead of local wall time; it never increments. A stamp
// further ahead is reported as Beyond and left out: the caller still
// stores the op and should log and export the offset. A stamp whose
// fields do not fit the text format is never adopted.
func (c *Clock) Observe(remote Timestamp) Observation {
	now := c.wall.Now().UnixMilli()
	o := Observation{Offset: msToDuration(remote.WallMS, now)}
	if o.Offset > c.maxOffset {
		o.Beyond = true
		return o
	}
	if !remote.inRange() {
		return o
	}
	c.mu.Lock()
	if remote.after(c.mu.ms, c.mu.counter) {
		c.mu.ms, c.mu.counter = remote.WallMS, remote.Counter
		o.Adopted = true
	}
	c.mu.Unlock()
	return o
}

// SeedOwn restores the clock from a stamp this replica issued before, such
// as the greatest stored stamp of its own origin after a restart. It is
// adopted if greater than the clock's state, even when it lies in the
// future, so the replica never issues a stamp at or below one it issued
// already. (The Python hub instead restarts at (0, 0) after a future seed;
// lsnode deliberately does not.)
func (c *Clock) SeedOwn(last Timestamp) {
	c.mu.Lock()
	if last.after(c.mu.ms, c.mu.counter) {
		c.mu.ms, c.mu.counter = last.WallMS, last.Counter
	}
	c.mu.Unlock()
}

// Now returns the clock's state, the last issued, adopted or seeded (ms,
// counter), rendered with this clock's replica id. It does not tick.
func (c *Clock) Now() Timestamp {
	c.mu.Lock()
	ms, counter := c.mu.ms, c.mu.counter
	c.mu.Unlock()
	return Timestamp{WallMS: ms, Counter: counter, Replica: c.replica}
}

// MaxOffset returns the skew bound beyond which remote stamps are not
// adopted.
func (c *Clock) MaxOffset() time.Duration { return c.maxOffset }

// Replica returns the replica id this clock stamps with.
func (c *Clock) Replica() string { return c.replica }

// msToDuration returns (remote - local) milliseconds as a Duration,
// saturating instead of overflowing for absurd remote values.
func msToDuration(remote, local int64) time.Duration {
	const limit = math.MaxInt64 / int64(time.Millisecond)
	switch d := remote - local; {
	case remote >= local && (d < 0 || d > limit):
		return math.MaxInt64
	case remote < local && (d >= 0 || d < -limit):
		return math.MinInt64
	default:
		return time.Duration(d) * time.Millisecond
	}
}
