package hlc

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// TestClock_RandomHistory runs a long seeded random history on one
// goroutine (wall jumps both ways, ticks, observes, seeds) and checks each
// step against the clock's contract, with maxSeen as the naive model: the
// greatest (ms, counter) ticked, adopted or seeded so far.
func TestClock_RandomHistory(t *testing.T) {
	const (
		seed      = 7
		steps     = 200_000
		maxOffset = 50 * time.Millisecond
	)
	rng := rand.New(rand.NewPCG(seed, seed))
	nowMS := int64(1_700_000_000_000)
	wall := NewManualClock(msTime(nowMS))
	c := NewClock(wall, localRep, maxOffset)
	var maxSeen Timestamp // Replica unused: the model compares (ms, counter)

	for i := range steps {
		switch r := rng.IntN(100); {
		case r < 10: // wall clock jumps, backwards as often as forwards
			nowMS += rng.Int64N(201) - 100
			wall.Set(msTime(nowMS))
		case r < 60:
			got := c.Tick()
			if !got.after(maxSeen.WallMS, maxSeen.Counter) {
				t.Fatalf("seed %d step %d: Tick() = %v, not after %v", seed, i, got, maxSeen)
			}
			if got.WallMS < nowMS || got.WallMS > max(nowMS, maxSeen.WallMS+1) {
				t.Fatalf("seed %d step %d: Tick() = %v, wall part outside [%d, max(%d, %d)]", seed, i, got, nowMS, nowMS, maxSeen.WallMS+1)
			}
			maxSeen = got
		case r < 98:
			remote := stamp(nowMS+rng.Int64N(121)-60, uint32(rng.IntN(4)), remoteRep)
			obs := c.Observe(remote)
			beyond := time.Duration(remote.WallMS-nowMS)*time.Millisecond > maxOffset
			adopt := !beyond && remote.after(maxSeen.WallMS, maxSeen.Counter)
			if obs.Beyond != beyond || obs.Adopted != adopt {
				t.Fatalf("seed %d step %d: Observe(%v) at wall %d = %+v, want Beyond=%v Adopted=%v", seed, i, remote, nowMS, obs, beyond, adopt)
			}
			if adopt {
				maxSeen = remote
			}
		default: // a restart-style seed, sometimes far in the future
			own := stamp(nowMS+rng.Int64N(2000)-1000, uint32(rng.IntN(MaxCounter+1)), localRep)
			c.SeedOwn(own)
			if own.after(maxSeen.WallMS, maxSeen.Counter) {
				maxSeen = own
			}
		}
		if got := c.Now(); got.WallMS != maxSeen.WallMS || got.Counter != maxSeen.Counter {
			t.Fatalf("seed %d step %d: Now() = %v, model says %v", seed, i, got, maxSeen)
		}
	}
}

// TestClock_ConcurrentTicks has 8 goroutines ticking while 2 observe
// remote stamps and 1 moves the wall clock at random, backwards too. Every
// goroutine must see strictly increasing stamps, and no stamp may be
// issued twice.
func TestClock_ConcurrentTicks(t *testing.T) {
	const (
		tickers   = 8
		observers = 2
		perTicker = 20_000
		startMS   = 1_700_000_000_000
	)
	wall := NewManualClock(msTime(startMS))
	c := NewClock(wall, localRep, 20*time.Millisecond)
	stop := make(chan struct{})

	var background sync.WaitGroup
	background.Go(func() { jumpWall(stop, wall, rand.New(rand.NewPCG(1, 0)), startMS) })
	for i := range observers {
		rng := rand.New(rand.NewPCG(2, uint64(i)))
		background.Go(func() { observeRandom(stop, c, wall, rng) })
	}

	results := make([][]Timestamp, tickers)
	var ticking sync.WaitGroup
	for g := range tickers {
		ticking.Go(func() {
			out := make([]Timestamp, perTicker)
			for i := range out {
				out[i] = c.Tick()
			}
			results[g] = out
		})
	}
	ticking.Wait()
	close(stop)
	background.Wait()

	seen := make(map[Timestamp]int, tickers*perTicker)
	final := c.Now()
	for g, out := range results {
		for i, ts := range out {
			if i > 0 && ts.Compare(out[i-1]) <= 0 {
				t.Fatalf("goroutine %d tick %d = %v, not after %v", g, i, ts, out[i-1])
			}
			if other, dup := seen[ts]; dup {
				t.Fatalf("stamp %v issued to goroutines %d and %d", ts, other, g)
			}
			seen[ts] = g
			if ts.Compare(final) > 0 {
				t.Fatalf("tick %v after final state %v", ts, final)
			}
		}
	}
}

// jumpWall moves wall around startMS until stop closes.
func jumpWall(stop <-chan struct{}, wall *ManualClock, rng *rand.Rand, startMS int64) {
	for {
		select {
		case <-stop:
			return
		default:
			wall.Set(msTime(startMS + rng.Int64N(1000)))
		}
	}
}

// observeRandom feeds c remote stamps near the wall time until stop closes.
func observeRandom(stop <-chan struct{}, c *Clock, wall *ManualClock, rng *rand.Rand) {
	for {
		select {
		case <-stop:
			return
		default:
			ms := wall.Now().UnixMilli() + rng.Int64N(61) - 30
			c.Observe(stamp(ms, uint32(rng.IntN(16)), remoteRep))
		}
	}
}
