package hlc

import (
	"math"
	"testing"
	"time"
)

// op is one event in a clock history.
type op int

const (
	tick op = iota // local op: Tick
	recv           // remote op applied: Observe(remote)
	seed           // restart: SeedOwn(remote)
)

func (o op) String() string { return [...]string{"TICK", "RECV", "SEED"}[o] }

// TestClock_History drives one clock through a history of wall-clock
// settings and events, checking the state after every step, in the manner
// of CockroachDB's SEND/RECV tables.
func TestClock_History(t *testing.T) {
	type step struct {
		wallMS int64     // wall clock during the step
		op     op        // what happens
		remote Timestamp // input of RECV and SEED
		want   Timestamp // Tick's result, and Now() after any step

		// RECV only.
		wantOffsetMS int64
		wantAdopted  bool
		wantBeyond   bool
	}
	L, R := localRep, remoteRep
	history := []step{
		// Wall time advances: (now, 0); stands still: counter + 1.
		{wallMS: 1000, op: tick, want: stamp(1000, 0, L)},
		{wallMS: 1000, op: tick, want: stamp(1000, 1, L)},
		{wallMS: 1001, op: tick, want: stamp(1001, 0, L)},
		// A remote counter ahead in the same ms is adopted; the next tick passes it.
		{wallMS: 1001, op: recv, remote: stamp(1001, 5, R), want: stamp(1001, 5, L), wantAdopted: true},
		{wallMS: 1001, op: tick, want: stamp(1001, 6, L)},
		// An equal (ms, counter) from another replica is not adopted; tie broken by replica.
		{wallMS: 1001, op: recv, remote: stamp(1001, 6, R), want: stamp(1001, 6, L)},
		{wallMS: 1001, op: tick, want: stamp(1001, 7, L)},
		// A remote ahead within the max offset drags the clock forward.
		{wallMS: 1002, op: recv, remote: stamp(1400, 2, R), want: stamp(1400, 2, L), wantOffsetMS: 398, wantAdopted: true},
		{wallMS: 1002, op: tick, want: stamp(1400, 3, L)},
		// Exactly the max offset ahead is still adopted ...
		{wallMS: 1002, op: recv, remote: stamp(1502, 0, R), want: stamp(1502, 0, L), wantOffsetMS: 500, wantAdopted: true},
		// ... one millisecond more is beyond: reported, not adopted.
		{wallMS: 1002, op: recv, remote: stamp(1503, 0, R), want: stamp(1502, 0, L), wantOffsetMS: 501, wantBeyond: true},
		{wallMS: 1002, op: tick, want: stamp(1502, 1, L)},
		// Wall clock steps back: ticks keep the ms and count.
		{wallMS: 900, op: tick, want: stamp(1502, 2, L)},
		// An old remote stamp changes nothing; its offset is negative.
		{wallMS: 900, op: recv, remote: stamp(800, 0, R), want: stamp(1502, 2, L), wantOffsetMS: -100},
		// Wall clock passes the clock again.
		{wallMS: 2000, op: tick, want: stamp(2000, 0, L)},
		// A seed of our own far in the future is adopted regardless of max offset.
		{wallMS: 2000, op: seed, remote: stamp(5000, 7, L), want: stamp(5000, 7, L)},
		{wallMS: 2000, op: tick, want: stamp(5000, 8, L)},
		// An older seed is ignored.
		{wallMS: 2000, op: seed, remote: stamp(4000, 0, L), want: stamp(5000, 8, L)},
		{wallMS: 6000, op: tick, want: stamp(6000, 0, L)},
		// Counter exhaustion steps the millisecond.
		{wallMS: 7000, op: recv, remote: stamp(7000, MaxCounter-1, R), want: stamp(7000, MaxCounter-1, L), wantAdopted: true},
		{wallMS: 7000, op: tick, want: stamp(7000, MaxCounter, L)},
		{wallMS: 7000, op: tick, want: stamp(7001, 0, L)},
		{wallMS: 7000, op: tick, want: stamp(7001, 1, L)},
		{wallMS: 7001, op: tick, want: stamp(7001, 2, L)},
		{wallMS: 7002, op: tick, want: stamp(7002, 0, L)},
	}

	wall := NewManualClock(msTime(0))
	c := NewClock(wall, L, 500*time.Millisecond)
	for i, s := range history {
		wall.Set(msTime(s.wallMS))
		switch s.op {
		case tick:
			if got := c.Tick(); got != s.want {
				t.Fatalf("step %d: wall %d TICK = %v, want %v", i, s.wallMS, got, s.want)
			}
		case recv:
			got := c.Observe(s.remote)
			want := Observation{
				Offset:  time.Duration(s.wantOffsetMS) * time.Millisecond,
				Adopted: s.wantAdopted,
				Beyond:  s.wantBeyond,
			}
			if got != want {
				t.Fatalf("step %d: wall %d RECV %v = %+v, want %+v", i, s.wallMS, s.remote, got, want)
			}
		case seed:
			c.SeedOwn(s.remote)
		}
		if got := c.Now(); got != s.want {
			t.Fatalf("step %d: after wall %d %v: Now() = %v, want %v", i, s.wallMS, s.op, got, s.want)
		}
	}
}

// TestClock_WallJumps checks, for several wall-clock histories, that ticks
// strictly increase and that the wall part is the latest wall time seen.
func TestClock_WallJumps(t *testing.T) {
	tests := []struct {
		name   string
		wallMS []int64
	}{
		{"forward", []int64{1000, 1001, 5000, 5001}},
		{"stuck", []int64{1000, 1000, 1000, 1000}},
		{"small backward step", []int64{1000, 999, 998, 1001}},
		{"large backward step", []int64{1_000_000, 1, 2, 3, 1_000_001}},
		{"before epoch", []int64{-5000, -4000, 0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wall := NewManualClock(msTime(tt.wallMS[0]))
			c := NewClock(wall, localRep, 0)
			var prev Timestamp
			var maxWall int64
			for i, ms := range tt.wallMS {
				wall.Set(msTime(ms))
				maxWall = max(maxWall, ms)
				got := c.Tick()
				if i > 0 && got.Compare(prev) <= 0 {
					t.Fatalf("tick %d at wall %d = %v, not after %v", i, ms, got, prev)
				}
				if got.WallMS != maxWall {
					t.Fatalf("tick %d at wall %d = %v, want wall part %d", i, ms, got, maxWall)
				}
				prev = got
			}
		})
	}
}

func TestClock_SeedOwnFutureIsRespected(t *testing.T) {
	wall := NewManualClock(msTime(1_700_000_000_000))
	c := NewClock(wall, localRep, time.Second)
	// Our clock was an hour fast when we last wrote; it has been corrected.
	future := stamp(1_700_003_600_000, 42, localRep)
	c.SeedOwn(future)
	for range 3 {
		if got := c.Tick(); got.Compare(future) <= 0 {
			t.Fatalf("Tick() = %v, want after seed %v", got, future)
		}
	}
	if got, want := c.Tick(), stamp(1_700_003_600_000, 46, localRep); got != want {
		t.Fatalf("Tick() = %v, want %v", got, want)
	}
}

func TestClock_SeedOwnAtMaxCounter(t *testing.T) {
	wall := NewManualClock(msTime(10))
	c := NewClock(wall, localRep, 0)
	c.SeedOwn(stamp(10, MaxCounter, localRep))
	if got, want := c.Tick(), stamp(11, 0, localRep); got != want {
		t.Fatalf("Tick() = %v, want %v", got, want)
	}
}

func TestClock_ObserveOutOfRangeNotAdopted(t *testing.T) {
	tests := []struct {
		name   string
		remote Timestamp
		want   Observation
	}{
		{"counter past MaxCounter", stamp(1000, MaxCounter+1, remoteRep), Observation{}},
		{"negative ms", stamp(-1, 0, remoteRep), Observation{Offset: -1001 * time.Millisecond}},
		{"ms overflows Duration", stamp(math.MaxInt64, 0, remoteRep), Observation{Offset: math.MaxInt64, Beyond: true}},
		{"ms underflows Duration", stamp(math.MinInt64, 0, remoteRep), Observation{Offset: math.MinInt64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClock(NewManualClock(msTime(1000)), localRep, 0)
			if got := c.Observe(tt.remote); got != tt.want {
				t.Fatalf("Observe(%+v) = %+v, want %+v", tt.remote, got, tt.want)
			}
			if got := c.Now(); got != stamp(0, 0, localRep) {
				t.Fatalf("Now() = %v, want initial state", got)
			}
		})
	}
}

func TestMsToDuration(t *testing.T) {
	const maxMS = int64(math.MaxInt64 / time.Millisecond) // the largest millisecond count a Duration holds
	const maxDur = time.Duration(maxMS) * time.Millisecond
	tests := []struct {
		remote, local int64
		want          time.Duration
	}{
		{1500, 1000, 500 * time.Millisecond},
		{1000, 1500, -500 * time.Millisecond},
		{0, 0, 0},
		{math.MaxInt64, 0, math.MaxInt64},
		{math.MaxInt64, -1, math.MaxInt64},
		{0, math.MinInt64, math.MaxInt64},
		{math.MinInt64, 1, math.MinInt64},
		{0, math.MaxInt64, math.MinInt64},
		{maxMS, 0, maxDur},
		{maxMS + 1, 0, math.MaxInt64},
		{-maxMS, 0, -maxDur},
		{-maxMS - 1, 0, math.MinInt64},
	}
	for _, tt := range tests {
		if got := msToDuration(tt.remote, tt.local); got != tt.want {
			t.Errorf("msToDuration(%d, %d) = %v, want %v", tt.remote, tt.local, got, tt.want)
		}
	}
}

func TestNewClock(t *testing.T) {
	wall := NewManualClock(msTime(0))
	if got := NewClock(wall, localRep, 0).MaxOffset(); got != DefaultMaxOffset {
		t.Errorf("MaxOffset() with 0 = %v, want %v", got, DefaultMaxOffset)
	}
	if got := NewClock(wall, localRep, -time.Second).MaxOffset(); got != DefaultMaxOffset {
		t.Errorf("MaxOffset() with -1s = %v, want %v", got, DefaultMaxOffset)
	}
	c := NewClock(wall, localRep, 3*time.Second)
	if got := c.MaxOffset(); got != 3*time.Second {
		t.Errorf("MaxOffset() = %v, want 3s", got)
	}
	if got := c.Replica(); got != localRep {
		t.Errorf("Replica() = %q, want %q", got, localRep)
	}
	if got := c.Now(); got != stamp(0, 0, localRep) || got.IsZero() {
		t.Errorf("Now() = %+v, want non-zero initial state (0, 0, %s)", got, localRep)
	}
}

func TestNewClock_Panics(t *testing.T) {
	tests := []struct {
		name    string
		wall    WallClock
		replica string
	}{
		{"nil wall", nil, localRep},
		{"empty replica", SystemClock{}, ""},
		{"newline in replica", SystemClock{}, "rep\n"},
		{"invalid UTF-8 replica", SystemClock{}, "rep\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("NewClock did not panic")
				}
			}()
			NewClock(tt.wall, tt.replica, 0)
		})
	}
}
