//go:build e2e

package e2e

// The seeded fault schedule: the same seed gives the same list of faults
// (kind, target, hold, gap); it is printed before it runs and again when
// the test fails. What the nodes do meanwhile is real time and is not
// replayed exactly, but the faults are.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// faultKind names one kind of fault.
type faultKind string

const (
	faultKill      faultKind = "kill9"     // SIGKILL, then a restart on the same data dir
	faultFreeze    faultKind = "sigstop"   // SIGSTOP, then SIGCONT
	faultPartition faultKind = "partition" // network cut between two groups (or one host isolated)
	faultSkew      faultKind = "skew"      // restart with --test-clock-offset, later without
	faultDiskFull  faultKind = "diskfull"  // the tmpfs under one node's data dir filled, then freed
)

var allFaultKinds = []faultKind{faultKill, faultFreeze, faultPartition, faultSkew, faultDiskFull}

// faultStep is one fault of the schedule.
type faultStep struct {
	At      time.Duration // planned start, from the start of the fault phase
	Kind    faultKind
	Target  int           // the node hurt (for a split partition: the lone side)
	Isolate bool          // partition: cut Target off from everyone, the test's clients included
	Skew    time.Duration // skew: the offset
	Hold    time.Duration // how long the fault stays
	Gap     time.Duration // quiet time after the heal
}

func (s faultStep) String() string {
	extra := ""
	switch {
	case s.Kind == faultPartition && s.Isolate:
		extra = " isolated"
	case s.Kind == faultPartition:
		extra = " split from the rest"
	case s.Kind == faultSkew:
		extra = fmt.Sprintf(" offset %+v", s.Skew)
	}
	return fmt.Sprintf("t+%-6v %-9s node f%d%s for %v, then %v quiet", s.At.Round(100*time.Millisecond),
		s.Kind, s.Target, extra, s.Hold, s.Gap)
}

// faultSchedule draws faults from seed until their planned time reaches
// total. Kinds come round in a seeded order, so a run long enough for one
// round injects every kind at least once; the disk-full fault always hits
// diskNode (the node on the tmpfs).
func faultSchedule(seed int64, nodes int, total time.Duration, kinds []faultKind, diskNode int) []faultStep {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))
	ms := func(lo, hi int) time.Duration { return time.Duration(lo+rng.IntN(hi-lo+1)) * time.Millisecond }
	var steps []faultStep
	var at time.Duration
	var round []faultKind
	for at < total && len(kinds) > 0 {
		if len(round) == 0 {
			round = append([]faultKind(nil), kinds...)
			rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		}
		s := faultStep{At: at, Kind: round[0], Target: rng.IntN(nodes), Gap: ms(1000, 3000)}
		round = round[1:]
		switch s.Kind {
		case faultKill:
			s.Hold = ms(500, 4000)
		case faultFreeze:
			s.Hold = ms(1000, 6000)
		case faultPartition:
			s.Hold = ms(3000, 9000)
			s.Isolate = rng.IntN(3) == 0
		case faultSkew:
			s.Hold = ms(4000, 8000)
			s.Skew = ms(800, 3000)
			if rng.IntN(2) == 0 {
				s.Skew = -s.Skew
			}
		case faultDiskFull:
			s.Hold = ms(2000, 6000)
			s.Target = diskNode
		}
		steps = append(steps, s)
		at += s.Hold + s.Gap + 2*time.Second // about what a restart and a heal take
	}
	return steps
}

// faultScheduleText renders the schedule for the log.
func faultScheduleText(seed int64, steps []faultStep) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fault schedule, seed %d (%d faults):\n", seed, len(steps))
	for i, s := range steps {
		fmt.Fprintf(&b, "  %2d. %s\n", i+1, s)
	}
	return b.String()
}

// faultRun is what running the schedule did.
type faultRun struct {
	ByKind   map[faultKind]int
	CatchUp  map[faultKind][]time.Duration // heal to every node holding what any node held at the heal
	Ran      int                           // steps started (the phase ends at its time even if steps remain)
	LastHeal time.Time
	Notes    []string // measurements taken during faults (offsets seen, disk filled)
}

// runSchedule injects each step in turn and heals it, on the test's
// goroutine, until the steps or total run out (but not before each kind
// ran once); the load runs meanwhile. A fault that cannot be injected is
// a finding, not a crash of the test.
func (c *faultCluster) runSchedule(steps []faultStep, total time.Duration) faultRun {
	run := faultRun{ByKind: map[faultKind]int{}, CatchUp: map[faultKind][]time.Duration{}}
	start := time.Now()
	for i, s := range steps {
		if time.Since(start) >= total && everyKindRan(steps, i) {
			c.t.Logf("fault phase of %v over: %d of %d planned faults ran", total, i, len(steps))
			break
		}
		run.Ran++
		if wait := time.Until(start.Add(s.At)); wait > 0 {
			time.Sleep(wait)
		}
		c.reviveCrashed()
		c.t.Logf("fault %d/%d at t+%v: %s", i+1, len(steps), time.Since(start).Round(time.Millisecond), s)
		n := c.nodes[s.Target]
		t0 := time.Now()
		heal, note, err := c.inject(s, n)
		if err != nil {
			c.findings.add("fault %d (%s): inject: %v", i+1, s, err)
			continue
		}
		injected := time.Since(t0)
		run.ByKind[s.Kind]++
		time.Sleep(s.Hold)
		if hn := c.observe(s, n); hn != "" {
			note = strings.TrimPrefix(note+"; "+hn, "; ")
		}
		t1 := time.Now()
		if err := heal(); err != nil {
			c.findings.add("fault %d (%s): heal: %v", i+1, s, err)
		}
		run.LastHeal = time.Now()
		if injected > 5*time.Second || run.LastHeal.Sub(t1) > 5*time.Second {
			c.t.Logf("fault %d: injecting took %v, healing %v", i+1, injected.Round(time.Millisecond),
				run.LastHeal.Sub(t1).Round(time.Millisecond))
		}
		if note != "" {
			run.Notes = append(run.Notes, fmt.Sprintf("fault %d %s f%d: %s", i+1, s.Kind, s.Target, note))
		}
		if d, ok := c.catchUp(30 * time.Second); ok {
			run.CatchUp[s.Kind] = append(run.CatchUp[s.Kind], d)
		} else {
			run.Notes = append(run.Notes, fmt.Sprintf("fault %d %s f%d: not caught up within 30 s of the heal", i+1, s.Kind, s.Target))
		}
		if rest := s.Gap - time.Since(run.LastHeal); rest > 0 {
			time.Sleep(rest)
		}
	}
	c.reviveCrashed()
	return run
}

// catchUp measures, right after a heal, how long until every node holds
// everything any node held at the heal (per origin, the largest origin_seq
// seen anywhere then); the load keeps writing meanwhile.
func (c *faultCluster) catchUp(within time.Duration) (time.Duration, bool) {
	start := time.Now()
	target := map[string]int64{}
	for _, n := range c.nodes {
		vv, err := faultVV(n.URL(), c.token)
		if err != nil {
			continue
		}
		for o, v := range vv {
			target[o] = max(target[o], v)
		}
	}
	ok, _ := testwait.Poll(within, func() (bool, string) {
		for _, n := range c.nodes {
			vv, err := faultVV(n.URL(), c.token)
			if err != nil {
				return false, err.Error()
			}
			for o, v := range target {
				if vv[o] < v {
					return false, fmt.Sprintf("%s holds %s up to %d, want %d", n.name, o, vv[o], v)
				}
			}
		}
		return true, ""
	})
	return time.Since(start), ok
}

// everyKindRan reports whether steps[:i] hold every kind that steps do,
// so that a short phase still injects each kind once.
func everyKindRan(steps []faultStep, i int) bool {
	ran := map[faultKind]bool{}
	for _, s := range steps[:i] {
		ran[s.Kind] = true
	}
	for _, s := range steps {
		if !ran[s.Kind] {
			return false
		}
	}
	return true
}

// inject starts fault s on node n and returns how to heal it.
func (c *faultCluster) inject(s faultStep, n *faultNode) (heal func() error, note string, err error) {
	switch s.Kind {
	case faultKill:
		c.kill9(n)
		return func() error { return c.restart(n) }, "", nil
	case faultFreeze:
		if err := c.signal(n, syscall.SIGSTOP); err != nil {
			return nil, "", err
		}
		return func() error { return c.signal(n, syscall.SIGCONT) }, "", nil
	case faultPartition:
		if s.Isolate {
			c.net.Isolate(n.idx)
		} else {
			var rest []int
			for _, o := range c.nodes {
				if o != n {
					rest = append(rest, o.idx)
				}
			}
			c.net.Partition([]int{n.idx}, rest)
		}
		return func() error { c.net.Heal(); return nil }, "", nil
	case faultSkew:
		n.skew = s.Skew
		if err := c.restart(n); err != nil {
			n.skew = 0
			return nil, "", err
		}
		return func() error { n.skew = 0; return c.restart(n) }, "", nil
	case faultDiskFull:
		filled, err := c.fillDisk()
		if err != nil {
			_ = c.freeDisk()
			return nil, "", err
		}
		return c.freeDisk, fmt.Sprintf("filler of %d MiB made the tmpfs full", filled>>20), nil
	}
	return nil, "", fmt.Errorf("unknown fault kind %q", s.Kind)
}

// observe takes a measurement at the end of a fault's hold: for a skew,
// the clock offset another node measured for the skewed one.
func (c *faultCluster) observe(s faultStep, n *faultNode) string {
	if s.Kind != faultSkew {
		return ""
	}
	other := c.nodes[(n.idx+1)%len(c.nodes)]
	m, err := faultMembers(other.URL(), c.token)
	if err != nil {
		return fmt.Sprintf("offset not read from %s: %v", other.name, err)
	}
	if row, ok := m[n.name]; ok && row.ClockMs != nil {
		return fmt.Sprintf("%s measured %s's clock at %+.0f ms (injected %+v)", other.name, n.name, *row.ClockMs, s.Skew)
	}
	return fmt.Sprintf("%s showed no clock offset for %s", other.name, n.name)
}
