//go:build e2e

package e2e

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Failure detection between real `lsnode serve` processes gossiping on
// 127.0.0.1, measured the way an operator would see it: the
// test polls every survivor's /sync/peers every 50 ms.
//
//   - kill -9 of one node: the time until every survivor shows it dead.
//     Target: p99 <= 4 s.
//   - SIGSTOP of one node for 2 s, then SIGCONT: no survivor may ever show
//     it dead (suspect is allowed), from the stop until 5 s after it, and
//     it is alive everywhere again afterwards. The node must log that it
//     noticed the stall and announced itself (node/membership/stall.go).
//
// Each test runs -membership.runs rounds (or LSNODE_E2E_FD_RUNS; default
// 10, about 50-60 s each on a 2-core box) on LSNODE_E2E_FD_NODES nodes
// (default 4). Victims come from a seeded RNG (LSNODE_E2E_FD_SEED, default
// 1; the seed is logged). The figures of docs/benchmarks.md#membership
// (failure detection on real processes) come from:
//
//	make build && LSNODE_BIN=$PWD/bin/lsnode go test -tags e2e -count=1 \
//	  -run TestMembershipFailure -v -timeout 60m ./e2e/ -membership.runs=100
var mfRunsFlag = flag.Int("membership.runs", 0, "rounds of each membership failure detection test (0: LSNODE_E2E_FD_RUNS, else 10)")

const (
	mfKillTarget  = 4 * time.Second  // p99
	mfKillLimit   = 20 * time.Second // a run slower than this is a failure, not a figure
	mfFreezeFor   = 2 * time.Second
	mfFreezeWatch = 5 * time.Second // from the SIGSTOP; suspicion alone is 2.8 s
	mfPoll        = 50 * time.Millisecond
)

// mfNode is one member: its name and process.
type mfNode struct {
	name string
	p    *lsnodeProc
}

// mfEnvInt reads a positive integer from the environment.
func mfEnvInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

func mfRuns() int {
	if *mfRunsFlag > 0 {
		return *mfRunsFlag
	}
	return mfEnvInt("LSNODE_E2E_FD_RUNS", 10)
}

// mfRand is the victims' RNG, its seed logged.
func mfRand(t *testing.T) *rand.Rand {
	seed := uint64(mfEnvInt("LSNODE_E2E_FD_SEED", 1))
	t.Logf("victims drawn with LSNODE_E2E_FD_SEED=%d", seed)
	return rand.New(rand.NewPCG(seed, 0x5eed))
}

// mfCluster starts n gossiping nodes; all but the first join the first.
// It returns once every node sees every node alive.
func mfCluster(t *testing.T, n int) []*mfNode {
	t.Helper()
	seed := mbStart(t, "f0", mbOptions{cluster: "e2e-fd"})
	nodes := []*mfNode{{"f0", seed.p}}
	for i := 1; i < n; i++ {
		m := mbStart(t, fmt.Sprintf("f%d", i), mbOptions{cluster: "e2e-fd", join: seed.gossip})
		nodes = append(nodes, &mfNode{m.name, m.p})
	}
	mfWaitAllAlive(t, nodes)
	return nodes
}

func mfWaitAllAlive(t *testing.T, nodes []*mfNode) {
	t.Helper()
	var procs []*lsnodeProc
	var names []string
	for _, n := range nodes {
		procs, names = append(procs, n.p), append(names, n.name)
	}
	rpWaitStates(t, 30*time.Second, procs, rpAll("alive", names...))
}

// mfVictim draws a victim, never the seed (restarts rejoin through it).
func mfVictim(r *rand.Rand, nodes []*mfNode) *mfNode {
	return nodes[1+r.IntN(len(nodes)-1)]
}

// mfSurvivorStates returns the victim's state on each survivor ("?" where
// the survivor did not answer).
func mfSurvivorStates(nodes []*mfNode, victim *mfNode) []string {
	var out []string
	for _, o := range nodes {
		if o == victim {
			continue
		}
		st, err := rpStates(o.p)
		if err != nil {
			out = append(out, "?")
			continue
		}
		out = append(out, st[victim.name])
	}
	return out
}

// mfFigures is a sorted sample's p50, p99 (nearest rank) and max.
func mfFigures(d []time.Duration) (p50, p99, maxd time.Duration) {
	s := slices.Sorted(slices.Values(d))
	rank := func(p int) time.Duration { return s[max(0, (p*len(s)+99)/100-1)] }
	return rank(50), rank(99), s[len(s)-1]
}

func TestMembershipFailure_KillIsDeadEverywhere(t *testing.T) {
	lsnodeBin(t)
	r := mfRand(t)
	nodes := mfCluster(t, mfEnvInt("LSNODE_E2E_FD_NODES", 4))
	var took []time.Duration
	for run := range mfRuns() {
		victim := mfVictim(r, nodes)
		start := time.Now()
		victim.p.Kill() // SIGKILL, then waits for the exit
		for {
			states := mfSurvivorStates(nodes, victim)
			if slices.IndexFunc(states, func(s string) bool { return s != "dead" }) < 0 {
				took = append(took, time.Since(start))
				break
			}
			if time.Since(start) > mfKillLimit {
				t.Fatalf("run %d: %s not dead on every survivor %v after SIGKILL: %v", run, victim.name, mfKillLimit, states)
			}
			time.Sleep(mfPoll)
		}
		victim.p.Restart()
		mfWaitAllAlive(t, nodes)
	}
	p50, p99, maxd := mfFigures(took)
	t.Logf("SIGKILL -> dead on every survivor (%d nodes, %d runs, polled every %v): p50 %v, p99 %v, max %v, min %v",
		len(nodes), len(took), mfPoll, p50.Round(time.Millisecond), p99.Round(time.Millisecond),
		maxd.Round(time.Millisecond), slices.Min(took).Round(time.Millisecond))
	if p99 > mfKillTarget {
		t.Errorf("p99 %v over the %v target", p99, mfKillTarget)
	}
}

func TestMembershipFailure_StopIsNeverDead(t *testing.T) {
	lsnodeBin(t)
	r := mfRand(t)
	nodes := mfCluster(t, mfEnvInt("LSNODE_E2E_FD_NODES", 4))
	suspected, declared := 0, 0
	for run := range mfRuns() {
		victim := mfVictim(r, nodes)
		victim.p.mu.Lock()
		pid := victim.p.cmd.Process.Pid
		victim.p.mu.Unlock()
		marks := mfLogMarks(nodes)
		start := time.Now()
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		thaw := func() {
			once.Do(func() {
				if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
					t.Errorf("SIGCONT: %v", err)
				}
			})
		}
		timer := time.AfterFunc(mfFreezeFor, thaw) // on time, whatever the poll is doing
		// A failed run must not leave a stopped process behind.
		t.Cleanup(func() {
			timer.Stop()
			thaw()
		})
		seenSuspect, seenDead := false, ""
		for time.Since(start) < mfFreezeWatch && seenDead == "" {
			for _, s := range mfSurvivorStates(nodes, victim) {
				switch s {
				case "dead", "left":
					seenDead = fmt.Sprintf("%s shown %s by a survivor %v after the SIGSTOP", victim.name, s,
						time.Since(start).Round(time.Millisecond))
				case "suspect":
					seenSuspect = true
				}
			}
			time.Sleep(mfPoll)
		}
		if seenSuspect {
			suspected++
		}
		if seenDead != "" {
			// Go on (the node refutes its death and is alive again), so
			// that a long run counts how often this happens.
			declared++
			t.Errorf("run %d: %s; what gossip logged from the stop on:\n%s", run, seenDead, mfGossipLines(nodes, marks))
		}
		if !strings.Contains(victim.p.Logs()[marks[slices.Index(nodes, victim)]:], mfStallLine) {
			t.Errorf("run %d: %s did not log %q after its SIGSTOP", run, victim.name, mfStallLine)
		}
		mfWaitAllAlive(t, nodes)
	}
	t.Logf("%d SIGSTOPs of %v (%d nodes, polled every %v for %v from the stop): shown dead in %d; shown suspect in %d",
		mfRuns(), mfFreezeFor, len(nodes), mfPoll, mfFreezeWatch, declared, suspected)
}

// mfStallLine is what a node logs when it notices it was stopped.
const mfStallLine = "did not run for a while; announcing itself to every peer"

// mfLogMarks notes how much each node has logged so far.
func mfLogMarks(nodes []*mfNode) []int {
	marks := make([]int, len(nodes))
	for i, n := range nodes {
		marks[i] = len(n.p.Logs())
	}
	return marks
}

// mfGossipLines is what each node's memberlist said about suspicion,
// death and refutation since marks.
func mfGossipLines(nodes []*mfNode, marks []int) string {
	var b strings.Builder
	for i, n := range nodes {
		for _, l := range strings.Split(n.p.Logs()[marks[i]:], "\n") {
			if strings.Contains(l, "component=memberlist") || strings.Contains(l, "peer down") ||
				strings.Contains(l, "peer up") {
				fmt.Fprintf(&b, "  %s: %s\n", n.name, l)
			}
		}
	}
	return b.String()
}
