package membership

import (
	"testing"
	"time"

	"github.com/hashicorp/memberlist"
)

// TestStallWatch: only a gap between readings over the limit is a stall.
func TestStallWatch(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	w := stallWatch{limit: time.Second, last: clock}
	for _, c := range []struct {
		step    time.Duration
		stalled bool
	}{
		{100 * time.Millisecond, false},
		{time.Second, false}, // exactly the limit
		{2300 * time.Millisecond, true},
		{100 * time.Millisecond, false},
		{1001 * time.Millisecond, true},
	} {
		clock = clock.Add(c.step)
		gap, stalled := w.tick(clock)
		if gap != c.step || stalled != c.stalled {
			t.Fatalf("after %v: tick = %v, %v; want %v, %v", c.step, gap, stalled, c.step, c.stalled)
		}
	}
}

// TestStalledNodeReasserts: a node frozen for 2 s whose gossip then never
// arrives (every packet it sends is lost, its TCP dials connect) cannot
// refute its suspicion by gossip, and without reasserting itself it is
// declared dead; reasserting (what the stall watch does on waking) hands
// every peer its new incarnation over TCP, and it stays alive everywhere.
// Production timings, in a synctest bubble (about 15 s of its time);
// push/pull is off so that only the reassertion can carry the news over
// TCP.
func TestStalledNodeReasserts(t *testing.T) { inBubble(t, testStalledNodeReasserts) }

func testStalledNodeReasserts(t *testing.T) {
	for _, reassert := range []bool{false, true} {
		c := newFDCluster(t, 3, false, func(cfg *Config) {
			cfg.noStallWatch = true
			cfg.tune = func(mc *memberlist.Config) { mc.PushPullInterval = 0 }
		})
		victim := c.nodes[2]
		survivors := []string{c.nodes[0].name, c.nodes[1].name}
		start := time.Now()
		c.hub.Isolate(victim.name)
		time.Sleep(freezeFor)
		c.hub.Mute(victim.name)
		c.hub.Restore(victim.name)
		if reassert {
			victim.m.reassert(freezeFor)
		}
		watch := probeInterval + suspicionMult*probeInterval + 2*time.Second
		declared := ""
		for time.Since(start) < watch && declared == "" {
			declared = c.downs.sawDown(survivors, victim.name)
			time.Sleep(10 * time.Millisecond)
		}
		switch {
		case !reassert && declared == "":
			t.Fatalf("without reassertion no survivor declared the muted node dead within %v: the test shows nothing", watch)
		case reassert && declared != "":
			t.Fatalf("%s declared %s dead although it reasserted itself (%v)", declared, victim.name, c.downs)
		}
		if reassert {
			for _, o := range c.nodes[:2] {
				if got := stateOn(o, victim.name); got != StateAlive && got != StateSuspect {
					t.Fatalf("%s sees %s as %q after the reassertion", o.name, victim.name, got)
				}
			}
		}
		c.close()
	}
}
