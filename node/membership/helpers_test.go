package membership

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/memberlist"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node/membership/memnet"
)

const testCluster = "test-cluster"

// testLogger discards logs unless LSNODE_TEST_LOG is set. memberlist's
// goroutines outlive a test by a few milliseconds, so logs must not go to
// t.Log (which panics after the test ends).
func testLogger() *slog.Logger {
	if os.Getenv("LSNODE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// fastTimers shrinks memberlist's timers for in-memory tests, as serf's
// tests do: probes every 100 ms, suspicion 400 ms, dead nodes reaped after
// 500 ms, so joins, deaths and reaping take about a second. On a loaded
// machine (2 cores, -race) a live node can still be declared dead and
// refute it; tests therefore check the Handler's contract (checkCalls),
// not an exact number of calls.
func fastTimers(mc *memberlist.Config) {
	mc.ProbeInterval = fastProbe
	mc.ProbeTimeout = fastProbe / 2
	mc.SuspicionMult = 4
	mc.SuspicionMaxTimeoutMult = 1
	mc.GossipInterval = 20 * time.Millisecond
	mc.PushPullInterval = 500 * time.Millisecond
	mc.GossipToTheDeadTime = fastReap
	mc.TCPTimeout = 2 * time.Second
}

// Timers of fastTimers that tests reason about.
const (
	fastProbe = 100 * time.Millisecond
	fastReap  = 500 * time.Millisecond
)

// testNode is one Membership on a Hub and the handler recording its calls.
type testNode struct {
	name string
	m    *Membership
	h    *recorder
	tr   *memnet.Transport
}

// startNode creates node name on hub with fast timers; mutate, if not nil,
// adjusts the config first. The node is shut down at cleanup.
func startNode(t *testing.T, hub *memnet.Hub, name string, mutate func(*Config)) *testNode {
	t.Helper()
	tr := hub.NewTransport(name)
	cfg := DefaultConfig(testCluster)
	cfg.Name = name
	cfg.BindAddr = tr.Addr()
	cfg.Meta = Meta{ReplicaID: "rep_" + name, GRPCAddr: name + ":7000", HTTPAddr: name + ":8765", Version: "test"}
	cfg.RejoinInterval = 100 * time.Millisecond
	cfg.ReconcileInterval = 200 * time.Millisecond
	cfg.Logger = testLogger()
	cfg.transport = tr
	cfg.tune = fastTimers
	if mutate != nil {
		mutate(&cfg)
	}
	h := newRecorder()
	m, err := Create(cfg, h)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return &testNode{name: name, m: m, h: h, tr: tr}
}

// newHub returns a Hub closed at cleanup, after the nodes (cleanups run in
// reverse order, so create the hub first).
func newHub(t *testing.T) *memnet.Hub {
	hub := memnet.New()
	t.Cleanup(hub.Close)
	return hub
}

// startCluster starts n nodes "n0".."n{n-1}" that join through n0.
func startCluster(t *testing.T, hub *memnet.Hub, n int, mutate func(*Config)) []*testNode {
	t.Helper()
	nodes := make([]*testNode, n)
	for i := range nodes {
		nodes[i] = startNode(t, hub, fmt.Sprintf("n%d", i), mutate)
	}
	for _, nd := range nodes[1:] {
		if _, err := nd.m.Join([]string{nodes[0].tr.Addr()}); err != nil {
			t.Fatalf("%s join: %v", nd.name, err)
		}
	}
	waitStates(t, nodes, names(nodes), StateAlive)
	return nodes
}

func names(nodes []*testNode) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.name
	}
	return out
}

// stateOn returns the state of name in n's Members(), "" if absent.
func stateOn(n *testNode, name string) State {
	for _, m := range n.m.Members() {
		if m.Name == name {
			return m.State
		}
	}
	return ""
}

// inBubble runs f in a synctest bubble: memberlist, the Hub and the
// Membership loops all run on the bubble's clock, which moves on as soon
// as every goroutine waits, so a test of what must not happen within a
// window (a verdict, a heal) sleeps through the window at no cost and
// with nothing in flight at its end. memberlist leaves goroutines behind
// at Shutdown that end by their own timers (an indirect probe waits out
// its timeout); the bubble's root must outlive them, so after f's
// cleanups it sleeps, in bubble time, past every memberlist timeout.
func inBubble(t *testing.T, f func(t *testing.T)) {
	synctest.Test(t, func(t *testing.T) {
		t.Cleanup(func() { time.Sleep(time.Minute) }) // runs last
		f(t)
	})
}

// waitStates waits until every observer sees every target in state.
func waitStates(t *testing.T, observers []*testNode, targets []string, state State) {
	t.Helper()
	testwait.For(t, 10*time.Second, func() (bool, string) {
		for _, o := range observers {
			for _, name := range targets {
				if got := stateOn(o, name); got != state {
					return false, fmt.Sprintf("%s sees %s as %q, want %q", o.name, name, got, state)
				}
			}
		}
		return true, ""
	})
}

// recorder is a Handler that records its calls.
type recorder struct {
	mu     sync.Mutex
	calls  []string // "up n1", "down n1 left", "refused x: reason"
	up     map[string]Member
	broken []string      // violations of the Handler contract
	gate   chan struct{} // if not nil, PeerUp waits for it to close
}

func newRecorder() *recorder { return &recorder{up: map[string]Member{}} }

func (r *recorder) PeerUp(m Member) {
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.up[m.Name]; ok && prev.Addr == m.Addr && prev.Meta == m.Meta {
		r.broken = append(r.broken, "duplicate PeerUp("+m.Name+")")
	}
	r.calls = append(r.calls, "up "+m.Name)
	r.up[m.Name] = m
}

// checkCalls fails the test if the Handler saw a duplicate PeerUp or a
// PeerDown of a peer that was not up.
func (r *recorder) checkCalls(t *testing.T, who string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.broken) > 0 {
		t.Errorf("%s: handler contract broken: %v (calls: %v)", who, r.broken, r.calls)
	}
}

func (r *recorder) PeerDown(m Member) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.up[m.Name]; !ok {
		r.broken = append(r.broken, "PeerDown("+m.Name+") while not up")
	}
	r.calls = append(r.calls, fmt.Sprintf("down %s %s", m.Name, m.State))
	delete(r.up, m.Name)
}

func (r *recorder) PeerRefused(m Member, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf("refused %s: %s", m.Name, reason))
}

// upNames returns the peers the handler currently believes up, sorted.
func (r *recorder) upNames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.up))
	for n := range r.up {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// count returns how many calls start with prefix.
func (r *recorder) count(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.calls, "; ")
}

// metricValue returns the value of the metric name in reg whose only label
// (if any) has value label; -1 when there is none.
func metricValue(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if label != "" && (len(m.GetLabel()) != 1 || m.GetLabel()[0].GetValue() != label) {
				continue
			}
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return -1
}

// gaugeByLabel returns the values of the one-label gauge name from a
// single scrape of reg, keyed by the label's value.
func gaugeByLabel(t *testing.T, reg *prometheus.Registry, name string) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) == 1 {
				values[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
			}
		}
	}
	return values
}
