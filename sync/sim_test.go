package lssync_test

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/simnet"
)

var simSeed = flag.Uint64("sim.seed", 0, "replay one simulation seed")

// fixedSeeds always run; a few random seeds are added on every run.
var fixedSeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 42, 1234, 99991, 20260101}

func simSeeds() []uint64 {
	if *simSeed != 0 {
		return []uint64{*simSeed}
	}
	seeds := slices.Clone(fixedSeeds)
	if !testing.Short() {
		for range 4 {
			seeds = append(seeds, rand.Uint64())
		}
	}
	return seeds
}

// TestSimulation_Converges drives 3-7 nodes through random appends,
// artifacts put without events, partitions, heals, restarts, lossy links
// and skewed clocks, then heals everything and checks the invariants on
// every node.
func TestSimulation_Converges(t *testing.T) {
	for _, seed := range simSeeds() {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			sc := newScenario(seed, memLogs)
			if err := sc.run(); err != nil {
				t.Fatalf("seed %d (replay: go test ./sync -run TestSimulation_Converges -sim.seed=%d): %v", seed, seed, err)
			}
			if err := sc.verify(); err != nil {
				t.Fatalf("seed %d (replay: go test ./sync -run TestSimulation_Converges -sim.seed=%d): %v", seed, seed, err)
			}
			t.Logf("seed %d: %s", seed, sc.summary())
		})
	}
}

// logFactory makes (or reopens) the log of a node.
type logFactory func(net *simnet.Network, name string) (simLog, error)

// simLog is what the scenario needs beyond lssync.Log.
type simLog interface {
	lssync.Log
	appendEvent(body string, artifact bool) (store.Event, error)
	putArtifact(content string) (string, error)
	artifactIDs() ([]string, error)
	opsOf(origin string) ([]store.Op, error)
	quarantined() ([]string, error)
	close() error
}

// feedLog is a Log with an artifact feed, as the scenario's logs are.
type feedLog interface {
	lssync.Log
	lssync.ArtifactFeed
}

type memLog struct{ *simnet.MemLog }

func (m memLog) appendEvent(body string, artifact bool) (store.Event, error) {
	return m.Append(body, artifact), nil
}
func (m memLog) putArtifact(content string) (string, error) { return m.PutArtifact(content).ID, nil }
func (m memLog) artifactIDs() ([]string, error)             { return m.Artifacts(), nil }
func (m memLog) opsOf(origin string) ([]store.Op, error)    { return m.Ops(origin), nil }
func (m memLog) quarantined() ([]string, error)             { return m.Quarantined(), nil }
func (m memLog) close() error                               { return nil }

func memLogs(net *simnet.Network, name string) (simLog, error) {
	return memLog{simnet.NewMemLog(name, func() time.Time { return net.NodeNow(name) })}, nil
}

type scenario struct {
	seed    uint64
	net     *simnet.Network
	rng     *rand.Rand
	names   []string
	logs    map[string]simLog
	factory logFactory
	reopen  bool // restarts close and reopen the log
	acked   map[string]store.Event
	arts    map[string]bool // every artifact acknowledged: put alone or with an event
	steps   int
	events  map[string]int
}

func newScenario(seed uint64, factory logFactory) *scenario {
	return newScenarioWith(seed, factory, nil)
}

// newScenarioWith is newScenario with origin integrity given to every
// node's links by integrity (nil: none).
func newScenarioWith(seed uint64, factory logFactory, integrity func(string, lssync.Log) (lssync.Integrity, error)) *scenario {
	rng := rand.New(rand.NewPCG(seed, 7))
	cfg := lssync.DefaultConfig("sim")
	cfg.SyncInterval = time.Second
	cfg.RoundTimeout = 3 * time.Second
	cfg.BatchOps = 1 + rng.IntN(16)
	cfg.BatchBytes = 2048 + rng.IntN(8192)
	cfg.PullWindow = 1 + rng.IntN(3)
	net := simnet.New(simnet.Config{
		Seed:      seed,
		Link:      cfg,
		Faults:    simnet.Faults{Drop: 0.02, Duplicate: 0.02, MinDelay: time.Millisecond, MaxDelay: 40 * time.Millisecond},
		SubBuffer: 4 + rng.IntN(16),
		Integrity: integrity,
		// Odd seeds store received batches behind the links, as sessions
		// do, each up to 30 ms late.
		ApplyBehind: seed%2 == 1,
		ApplyDelay:  30 * time.Millisecond,
	})
	return &scenario{
		seed: seed, net: net, rng: rng, logs: map[string]simLog{}, factory: factory,
		acked: map[string]store.Event{}, arts: map[string]bool{}, steps: 300, events: map[string]int{},
	}
}

// build adds 3-7 nodes, some with skewed clocks, connected by a random
// spanning tree (so some ops must be relayed) plus a few extra edges.
func (sc *scenario) build() error {
	n := 3 + sc.rng.IntN(5)
	for i := range n {
		name := fmt.Sprintf("rep_%012x", i+1)
		l, err := sc.factory(sc.net, name)
		if err != nil {
			return err
		}
		skew := time.Duration(0)
		if sc.rng.IntN(3) == 0 {
			skew = time.Duration(sc.rng.Int64N(int64(4*time.Second))) - 2*time.Second
		}
		sc.names = append(sc.names, name)
		sc.logs[name] = l
		sc.net.AddNode(name, l, skew)
	}
	for i := 1; i < n; i++ {
		sc.net.Connect(sc.names[i], sc.names[sc.rng.IntN(i)])
	}
	for range sc.rng.IntN(n) {
		a, b := sc.rng.IntN(n), sc.rng.IntN(n)
		if a != b {
			sc.net.Connect(sc.names[a], sc.names[b])
		}
	}
	return nil
}

func (sc *scenario) run() error {
	if err := sc.build(); err != nil {
		return err
	}
	for range sc.steps {
		if err := sc.step(); err != nil {
			return err
		}
		if err := sc.net.Run(time.Duration(5+sc.rng.IntN(200)) * time.Millisecond); err != nil {
			return err
		}
	}
	return sc.settle()
}

func (sc *scenario) step() error {
	name := sc.names[sc.rng.IntN(len(sc.names))]
	switch p := sc.rng.IntN(100); {
	case p < 60:
		return sc.appendOn(name)
	case p < 68:
		sc.events["partition"]++
		sc.net.Partition(name, 1+sc.rng.IntN(2))
	case p < 74:
		sc.events["heal"]++
		sc.net.Heal(name)
	case p < 77:
		sc.events["heal_all"]++
		sc.net.HealAll()
	case p < 82:
		return sc.restart(name)
	case p < 86:
		sc.events["faults"]++
		sc.net.SetFaults(sc.randomFaults(0.2))
	case p < 90:
		sc.events["link_faults"]++
		other := sc.names[sc.rng.IntN(len(sc.names))]
		sc.net.SetLinkFaults(name, other, sc.randomFaults(0.6))
	case p < 96:
		return sc.putOn(name)
	}
	return nil
}

// putOn puts an artifact that no event names.
func (sc *scenario) putOn(name string) error {
	if !sc.net.Up(name) {
		return nil
	}
	sc.events["put"]++
	id, err := sc.logs[name].putArtifact(fmt.Sprintf("artifact %d put on %s", sc.events["put"], name))
	if err != nil {
		return fmt.Errorf("put on %s: %w", name, err)
	}
	sc.arts[id] = true
	sc.net.Flush(name)
	return nil
}

// randomFaults draws link faults with a drop rate up to maxDrop.
func (sc *scenario) randomFaults(maxDrop float64) simnet.Faults {
	return simnet.Faults{
		Drop: sc.rng.Float64() * maxDrop, Duplicate: sc.rng.Float64() * 0.1,
		MinDelay: time.Millisecond, MaxDelay: time.Duration(1+sc.rng.IntN(200)) * time.Millisecond,
	}
}

func (sc *scenario) appendOn(name string) error {
	if !sc.net.Up(name) {
		return nil
	}
	sc.events["append"]++
	e, err := sc.logs[name].appendEvent(fmt.Sprintf("body %d from %s", sc.events["append"], name), sc.rng.IntN(8) == 0)
	if err != nil {
		return fmt.Errorf("append on %s: %w", name, err)
	}
	sc.acked[e.ID] = e
	for _, id := range e.ArtifactIDs {
		sc.arts[id] = true
	}
	sc.net.Flush(name)
	return nil
}

func (sc *scenario) restart(name string) error {
	if !sc.net.Up(name) {
		return nil
	}
	sc.events["restart"]++
	sc.net.Stop(name)
	if err := sc.net.Run(time.Duration(sc.rng.IntN(2000)) * time.Millisecond); err != nil {
		return err
	}
	l := sc.logs[name]
	if sc.reopen {
		if err := l.close(); err != nil {
			return err
		}
		var err error
		if l, err = sc.factory(sc.net, name); err != nil {
			return fmt.Errorf("reopen %s: %w", name, err)
		}
		sc.logs[name] = l
	}
	sc.net.Start(name, l)
	return nil
}

// settle heals everything, keeps mild faults, and runs until every node
// holds the same version vector and the same artifacts.
func (sc *scenario) settle() error {
	sc.net.HealAll()
	sc.net.ClearLinkFaults()
	sc.net.SetFaults(simnet.Faults{Drop: 0.01, Duplicate: 0.01, MinDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond})
	ok, err := sc.net.RunUntil(10*time.Minute, 500*time.Millisecond, sc.converged)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no convergence after 10 virtual minutes: %s", sc.vectors())
	}
	return nil
}

func (sc *scenario) converged() bool {
	first := sc.logs[sc.names[0]].VersionVector()
	arts, err := sc.logs[sc.names[0]].artifactIDs()
	if err != nil {
		return false
	}
	for _, name := range sc.names[1:] {
		if !mapsEqual(first, sc.logs[name].VersionVector()) {
			return false
		}
		if held, err := sc.logs[name].artifactIDs(); err != nil || !slices.Equal(held, arts) {
			return false
		}
	}
	return true
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func (sc *scenario) vectors() string {
	s := ""
	for _, name := range sc.names {
		arts, _ := sc.logs[name].artifactIDs()
		s += fmt.Sprintf("\n  %s: %v, %d artifacts", name, sc.logs[name].VersionVector(), len(arts))
	}
	return s
}

// verify checks, on every node: the same ops byte for byte per origin,
// every acknowledged append exactly once, HLC increasing per origin,
// exactly the acknowledged artifacts, nothing quarantined.
func (sc *scenario) verify() error {
	ref := sc.names[0]
	for _, name := range sc.names {
		if err := sc.verifyNode(name, ref); err != nil {
			return fmt.Errorf("node %s: %w", name, err)
		}
	}
	return nil
}

func (sc *scenario) verifyNode(name, ref string) error {
	l := sc.logs[name]
	if q, err := l.quarantined(); err != nil || len(q) > 0 {
		return fmt.Errorf("quarantined %v (err %v)", q, err)
	}
	seen := map[string]int{}
	for _, origin := range sc.names {
		ops, err := l.opsOf(origin)
		if err != nil {
			return err
		}
		want, err := sc.logs[ref].opsOf(origin)
		if err != nil {
			return err
		}
		if err := sameOps(ops, want); err != nil {
			return fmt.Errorf("origin %s differs from %s: %w", origin, ref, err)
		}
		if err := hlcIncreasing(ops); err != nil {
			return fmt.Errorf("origin %s: %w", origin, err)
		}
		for _, op := range ops {
			seen[op.Event.ID]++
		}
	}
	for id := range sc.acked {
		if seen[id] != 1 {
			return fmt.Errorf("acknowledged event %s held %d times", id, seen[id])
		}
	}
	if len(seen) != len(sc.acked) {
		return fmt.Errorf("holds %d events, %d were acknowledged", len(seen), len(sc.acked))
	}
	arts, err := l.artifactIDs()
	if err != nil {
		return err
	}
	want := slices.Sorted(maps.Keys(sc.arts))
	if !slices.Equal(arts, want) {
		return fmt.Errorf("holds %d artifacts, want the %d acknowledged: %v", len(arts), len(want), arts)
	}
	return nil
}

func sameOps(got, want []store.Op) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d ops, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].PrevSeq != want[i].PrevSeq || !simnet.SameEvent(got[i].Event, want[i].Event) {
			return fmt.Errorf("op %d: %+v != %+v", i, got[i], want[i])
		}
	}
	return nil
}

func hlcIncreasing(ops []store.Op) error {
	for i := 1; i < len(ops); i++ {
		if ops[i].Event.HLC <= ops[i-1].Event.HLC {
			return fmt.Errorf("hlc not increasing at seq %d: %s <= %s", ops[i].Event.OriginSeq, ops[i].Event.HLC, ops[i-1].Event.HLC)
		}
	}
	return nil
}

func (sc *scenario) summary() string {
	st := sc.net.Stats()
	return fmt.Sprintf("%d nodes, %d acked, events %v, sessions %d ended %v, dropped %d dup %d, frames %v",
		len(sc.names), len(sc.acked), sc.events, st.SessionsRun, st.Ended, st.Dropped, st.Duplicated, st.Frames)
}
