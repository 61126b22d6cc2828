//go:build e2e

package e2e

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// A mesh started all at once, as `make cluster` (scripts/local-cluster.sh)
// starts it: three `lsnode serve` processes exec'd at the same moment.
// Whichever node binds its gossip port before its seed does finds no
// listener there; its failed join is retried within a fraction of a
// second (node/membership/join.go), so one mesh forms at once instead of
// after the 30 s rejoin interval. The starts alternate two seedings: a
// ring (each node seeded with the next, so the seeds point at each other)
// and the star of `make cluster` (nodes 1 and 2 seeded with node 0). Each
// seeds every node with the other two would mesh even without the retry:
// the last node up always finds the others listening.

const (
	msStarts   = 20              // fresh starts: fresh temp dirs and ports each
	msMeshTime = 3 * time.Second // from the first exec to every node seeing three alive members
	msNodes    = 3
)

// TestClusterStart_MeshFormsAtOnce starts the three nodes msStarts times
// and requires one mesh within msMeshTime in every start.
func TestClusterStart_MeshFormsAtOnce(t *testing.T) {
	lsnodeBin(t)
	met := 0
	var slowest time.Duration
	var failures []string
	for i := range msStarts {
		took, ok := msStartOnce(t, i)
		if ok {
			met++
			slowest = max(slowest, took)
		} else {
			failures = append(failures, fmt.Sprintf("start %d: %s", i, took.Round(time.Millisecond)))
		}
	}
	t.Logf("%d of %d fresh starts formed one mesh within %v (slowest of those: %v)",
		met, msStarts, msMeshTime, slowest.Round(time.Millisecond))
	if met != msStarts {
		t.Fatalf("%d of %d starts did not form one mesh within %v: %s", msStarts-met, msStarts, msMeshTime,
			strings.Join(failures, "; "))
	}
}

// msStartOnce runs one fresh start and stops its nodes; it reports how long
// the mesh took and whether that was within msMeshTime. A port taken by
// another process in the meantime (freePort races) starts again on fresh
// ports.
func msStartOnce(t *testing.T, start int) (time.Duration, bool) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		procs, began, err := startLsnodes(t, msOptions(t, start))
		if err != nil {
			if attempt < 2 && strings.Contains(err.Error(), "address already in use") {
				t.Logf("start %d: a port was taken; again on fresh ports", start)
				continue
			}
			t.Fatalf("start %d: %v", start, err)
		}
		took, ok := msWaitMesh(procs, began)
		if !ok {
			for i, p := range procs {
				t.Logf("start %d: no mesh within %v; node %d log:\n%s", start, msMeshTime, i, p.Logs())
			}
		}
		for _, p := range procs {
			if err := p.Stop(); err != nil {
				t.Errorf("start %d: stop: %v\n%s", start, err, p.Logs())
			}
		}
		return took, ok
	}
}

// msOptions are the three nodes of one start: fresh ports and data dirs;
// even starts seed a ring, odd ones the star of `make cluster`.
func msOptions(t *testing.T, start int) []nodeOptions {
	gossip := make([]string, msNodes)
	for i := range gossip {
		gossip[i] = "127.0.0.1:" + strconv.Itoa(freePort(t))
	}
	opts := make([]nodeOptions, msNodes)
	for i := range opts {
		seed := gossip[(i+1)%msNodes] // ring
		if start%2 == 1 {
			seed = gossip[0] // star
		}
		args := []string{"--cluster-id", "e2e-start", "--name", fmt.Sprintf("s%d-%d", start, i),
			"--gossip", gossip[i], "--grpc", "127.0.0.1:" + strconv.Itoa(freePort(t))}
		if seed != gossip[i] {
			args = append(args, "--join", seed)
		}
		opts[i] = nodeOptions{Port: freePort(t), Args: args}
	}
	// The processes are exec'd in this order, a few milliseconds apart:
	// shuffle it (seeded by the start), so no seed is favoured.
	rand.New(rand.NewPCG(uint64(start), 0x5eed)).Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
	return opts
}

// msWaitMesh polls every node's /sync/peers until each lists msNodes
// alive members, or msMeshTime has passed since began.
func msWaitMesh(procs []*lsnodeProc, began time.Time) (time.Duration, bool) {
	meshed, _ := testwait.Poll(time.Until(began.Add(msMeshTime)), func() (bool, string) { return msMeshed(procs), "" },
		testwait.Every(20*time.Millisecond)) // timed
	took := time.Since(began)
	return took, meshed && took <= msMeshTime
}

func msMeshed(procs []*lsnodeProc) bool {
	for _, p := range procs {
		st, err := rpStates(p)
		if err != nil {
			return false
		}
		alive := 0
		for _, s := range st {
			if s == "alive" {
				alive++
			}
		}
		if alive != msNodes {
			return false
		}
	}
	return true
}
