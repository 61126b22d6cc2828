package membership

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/memberlist"
	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/prometheus/client_golang/prometheus"
)

func TestMembership_JoinThroughSeed(t *testing.T) {
	hub := newHub(t)
	nodes := startCluster(t, hub, 5, nil)
	for _, n := range nodes {
		var want []string
		for _, o := range nodes {
			if o != n {
				want = append(want, o.name)
			}
		}
		testwait.For(t, 5*time.Second, func() (bool, string) {
			got := n.h.upNames()
			return slices.Equal(got, want), n.name + " handler up = " + strings.Join(got, ",")
		})
		n.h.checkCalls(t, n.name)
	}
	// Metadata travels: n3's view of n1.
	got := nodes[3].h.upNames()
	nodes[3].h.mu.Lock()
	meta := nodes[3].h.up["n1"].Meta
	nodes[3].h.mu.Unlock()
	want := Meta{ReplicaID: "rep_n1", ClusterID: testCluster, GRPCAddr: "n1:7000", HTTPAddr: "n1:8765", Version: "test"}
	if meta != want {
		t.Fatalf("n3 sees n1's meta %+v, want %+v (up %v)", meta, want, got)
	}
	self := nodes[2].m.LocalNode()
	if self.Name != "n2" || self.State != StateAlive || self.Meta.ReplicaID != "rep_n2" || self.Addr != nodes[2].tr.Addr() {
		t.Fatalf("LocalNode = %+v", self)
	}
}

func TestMembership_LeaveIsSeenAsLeft(t *testing.T) {
	hub := newHub(t)
	nodes := startCluster(t, hub, 4, nil)
	leaver := nodes[3]
	if err := leaver.m.Leave(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := leaver.m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	waitStates(t, nodes[:3], []string{"n3"}, StateLeft)
	for _, n := range nodes[:3] {
		testwait.For(t, 5*time.Second, func() (bool, string) {
			return n.h.count("down n3 left") == 1, n.name + ": " + n.h.String()
		})
		testwait.For(t, 5*time.Second, func() (bool, string) { // the leaving notice came too (leave.go)
			n.m.table.mu.Lock()
			defer n.m.table.mu.Unlock()
			return n.m.table.leavers["n3"], n.name + " got no leaving notice from n3"
		})
	}
	if err := leaver.m.Leave(time.Second); !errors.Is(err, ErrShutdown) {
		t.Fatalf("Leave after Shutdown = %v, want ErrShutdown", err)
	}
	if err := leaver.m.Shutdown(); err != nil {
		t.Fatalf("second Shutdown = %v", err)
	}
}

func TestMembership_CrashIsSeenAsDead(t *testing.T) {
	hub := newHub(t)
	nodes := startCluster(t, hub, 3, nil)
	if err := nodes[2].m.Shutdown(); err != nil { // no Leave: a crash
		t.Fatal(err)
	}
	waitStates(t, nodes[:2], []string{"n2"}, StateDead)
	for _, n := range nodes[:2] {
		testwait.For(t, 5*time.Second, func() (bool, string) {
			return n.h.count("down n2 dead") >= 1, n.name + ": " + n.h.String()
		})
	}
}

// TestMembership_PartitionHealsThroughRejoin cuts a 4-node cluster in two
// for longer than memberlist's reap time (GossipToTheDeadTime, 500 ms
// here): each side declares the other dead and forgets it, so memberlist
// alone never probes across again. The rejoin loop heals it.
func TestMembership_PartitionHealsThroughRejoin(t *testing.T) {
	hub := newHub(t)
	nodes := startCluster(t, hub, 4, nil)
	left, right := nodes[:2], nodes[2:]
	hub.Partition(names(left), names(right))
	waitStates(t, left, names(right), StateDead)
	waitStates(t, right, names(left), StateDead)
	waitReaped(t, nodes)
	hub.HealAll()
	waitStates(t, nodes, names(nodes), StateAlive)
	for _, n := range nodes {
		testwait.For(t, 5*time.Second, func() (bool, string) {
			return len(n.h.upNames()) == 3, n.name + ": " + n.h.String()
		})
	}
}

// TestMembership_PartitionStaysWithoutRejoin is the control: with the
// rejoin loop off, the same partition does not heal by itself.
func TestMembership_PartitionStaysWithoutRejoin(t *testing.T) {
	inBubble(t, testPartitionStaysWithoutRejoin)
}

func testPartitionStaysWithoutRejoin(t *testing.T) {
	hub := newHub(t)
	nodes := startCluster(t, hub, 4, func(c *Config) { c.RejoinInterval = -1 })
	hub.Partition(names(nodes[:2]), names(nodes[2:]))
	waitStates(t, nodes[:2], names(nodes[2:]), StateDead)
	waitStates(t, nodes[2:], names(nodes[:2]), StateDead)
	waitReaped(t, nodes)
	hub.HealAll()
	// A negative needs a window: 3 push/pull intervals (500 ms each) and
	// 15 probe intervals pass with every link restored, in bubble time.
	time.Sleep(1500 * time.Millisecond)
	if got := stateOn(nodes[0], "n2"); got != StateDead {
		t.Fatalf("n0 sees n2 as %q without the rejoin loop; want still dead", got)
	}
}

// waitReaped waits until every dead member has been dead for longer than
// the reap time of fastTimers plus a full probe cycle, after which
// memberlist has dropped it and stopped gossiping to it.
func waitReaped(t *testing.T, nodes []*testNode) {
	t.Helper()
	const reaped = fastReap + 4*fastProbe + 200*time.Millisecond
	testwait.For(t, 5*time.Second, func() (bool, string) {
		for _, n := range nodes {
			for _, m := range n.m.Members() {
				if m.State == StateDead && time.Since(m.Since) < reaped {
					return false, m.Name + " not yet reaped on " + n.name
				}
			}
		}
		return true, ""
	})
}

func TestMembership_RefusesOtherCluster(t *testing.T) {
	hub := newHub(t)
	reg := prometheus.NewRegistry()
	nodes := startCluster(t, hub, 3, nil)
	stranger := startNode(t, hub, "x", func(c *Config) {
		c.ClusterID = "other"
		c.Registerer = reg
	})
	_, err := stranger.m.Join([]string{nodes[0].tr.Addr()})
	if err == nil || !strings.Contains(err.Error(), "another cluster") {
		t.Fatalf("join of another cluster = %v, want a refusal", err)
	}
	testwait.For(t, 5*time.Second, func() (bool, string) {
		return stateOn(nodes[0], "x") == StateRefused, "n0 sees x as " + string(stateOn(nodes[0], "x"))
	})
	testwait.For(t, 5*time.Second, func() (bool, string) {
		return nodes[0].h.count("refused x: cluster id \"other\", want \""+testCluster+"\"") == 1, nodes[0].h.String()
	})
	for _, m := range nodes[0].m.Members() {
		if m.Name == "x" && (m.Reason == "" || m.Meta.ClusterID != "other") {
			t.Fatalf("refused member = %+v", m)
		}
	}
	// The stranger refused us too, and nobody treats the other as a peer.
	if got := stateOn(stranger, "n0"); got != StateRefused {
		t.Fatalf("x sees n0 as %q, want refused", got)
	}
	if n := metricValue(t, reg, "lsnode_membership_refused_total", ""); n < 1 {
		t.Fatalf("refused_total on x = %v", n)
	}
	for _, n := range nodes {
		if slices.Contains(n.h.upNames(), "x") {
			t.Fatalf("%s reported x up", n.name)
		}
	}
	if len(stranger.h.upNames()) != 0 {
		t.Fatalf("x reported peers up: %v", stranger.h.upNames())
	}
}

// TestMembership_RefusesUndecodableMeta joins a bare memberlist node whose
// metadata is not lsnode's.
func TestMembership_RefusesUndecodableMeta(t *testing.T) {
	hub := newHub(t)
	nodes := startCluster(t, hub, 2, nil)
	mc := memberlist.DefaultLocalConfig()
	mc.Name = "bare"
	mc.Transport = hub.NewTransport("bare")
	mc.Delegate = rawMeta([]byte("not lsnode"))
	mc.Logger = nil
	mc.LogOutput = discard{}
	fastTimers(mc)
	bare, err := memberlist.Create(mc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bare.Shutdown() })
	// bare has no merge delegate: its side of the push/pull succeeds, and
	// n0's side refuses it.
	_, _ = bare.Join([]string{nodes[0].tr.Addr()})
	testwait.For(t, 5*time.Second, func() (bool, string) {
		return nodes[0].h.count("refused bare: undecodable metadata") == 1, nodes[0].h.String()
	})
	if got := stateOn(nodes[0], "bare"); got != StateRefused {
		t.Fatalf("n0 sees bare as %q, want refused", got)
	}
}

type rawMeta []byte

func (r rawMeta) NodeMeta(int) []byte           { return r }
func (rawMeta) NotifyMsg([]byte)                {}
func (rawMeta) GetBroadcasts(int, int) [][]byte { return nil }
func (rawMeta) LocalState(bool) []byte          { return nil }
func (rawMeta) MergeRemoteState([]byte, bool)   {}
func (discard) Write(p []byte) (int, error)     { return len(p), nil }

type discard struct{}

func TestMembership_MetaTooLarge(t *testing.T) {
	hub := newHub(t)
	big := Meta{Version: strings.Repeat("v", 600)}
	tr := hub.NewTransport("big")
	cfg := DefaultConfig(testCluster)
	cfg.Name, cfg.Meta, cfg.transport, cfg.tune = "big", big, tr, fastTimers
	if _, err := Create(cfg, nil); !errors.Is(err, ErrMetaTooLarge) {
		t.Fatalf("Create with 600-byte meta = %v, want ErrMetaTooLarge", err)
	}

	nodes := startCluster(t, hub, 2, nil)
	if err := nodes[1].m.UpdateMeta(big); !errors.Is(err, ErrMetaTooLarge) {
		t.Fatalf("UpdateMeta = %v, want ErrMetaTooLarge", err)
	}
	if got := nodes[1].m.LocalNode().Meta.ReplicaID; got != "rep_n1" {
		t.Fatalf("refused update changed the announced meta: replica %q", got)
	}
}

func TestMembership_UpdateMetaReachesPeers(t *testing.T) {
	hub := newHub(t)
	nodes := startCluster(t, hub, 3, nil)
	testwait.For(t, 5*time.Second, func() (bool, string) {
		return nodes[0].h.count("up n2") >= 1, nodes[0].h.String()
	})
	next := Meta{ReplicaID: "rep_n2", GRPCAddr: "n2:7001", HTTPAddr: "n2:8765", Version: "test2"}
	if err := nodes[2].m.UpdateMeta(next); err != nil {
		t.Fatal(err)
	}
	next.ClusterID = testCluster
	testwait.For(t, 5*time.Second, func() (bool, string) {
		nodes[0].h.mu.Lock()
		got := nodes[0].h.up["n2"].Meta
		nodes[0].h.mu.Unlock()
		return got == next, nodes[0].h.String()
	})
	nodes[0].h.checkCalls(t, "n0")
}

// TestMembership_EventOverflowReconciles blocks the Handler while four
// nodes join through a one-slot queue: events are dropped and counted,
// and the reconciliation still delivers each peer exactly once.
func TestMembership_EventOverflowReconciles(t *testing.T) {
	hub := newHub(t)
	reg := prometheus.NewRegistry()
	seed := startNode(t, hub, "n0", func(c *Config) { c.EventQueue, c.Registerer = 1, reg })
	gate := make(chan struct{})
	seed.h.gate = gate
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // before the node's Shutdown, which waits for the Handler
	var others []*testNode
	for _, name := range []string{"n1", "n2", "n3", "n4"} {
		n := startNode(t, hub, name, nil)
		if _, err := n.m.Join([]string{seed.tr.Addr()}); err != nil {
			t.Fatal(err)
		}
		others = append(others, n)
	}
	waitStates(t, []*testNode{seed}, names(others), StateAlive)
	testwait.For(t, 5*time.Second, func() (bool, string) {
		return metricValue(t, reg, "lsnode_membership_events_dropped_total", "") > 0, "no event dropped yet"
	})
	release()
	want := names(others)
	testwait.For(t, 5*time.Second, func() (bool, string) {
		got := seed.h.upNames()
		return slices.Equal(got, want), "handler up = " + strings.Join(got, ",")
	})
	seed.h.checkCalls(t, "n0")
}

// TestMembership_RestartRejoinsKnownPeers restarts a node on the same data
// dir without any seed: it finds the cluster through lsnode-peers.json.
func TestMembership_RestartRejoinsKnownPeers(t *testing.T) {
	hub := newHub(t)
	dir := t.TempDir()
	nodes := startCluster(t, hub, 2, nil)
	b := startNode(t, hub, "b", func(c *Config) { c.DataDir = dir })
	if _, err := b.m.Join([]string{nodes[0].tr.Addr()}); err != nil {
		t.Fatal(err)
	}
	waitStates(t, []*testNode{b}, names(nodes), StateAlive)
	if err := b.m.Leave(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := b.m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	waitStates(t, nodes, []string{"b"}, StateLeft)

	again := startNode(t, hub, "b", func(c *Config) { c.DataDir = dir })
	waitStates(t, nodes, []string{"b"}, StateAlive)
	waitStates(t, []*testNode{again}, names(nodes), StateAlive)
}

func TestMembership_Metrics(t *testing.T) {
	hub := newHub(t)
	reg := prometheus.NewRegistry()
	nodes := startCluster(t, hub, 3, func(c *Config) {
		if c.Name == "n0" {
			c.Registerer = reg
		}
	})
	if err := nodes[2].m.Leave(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitStates(t, nodes[:1], []string{"n2"}, StateLeft)
	// Alive and suspect add up to the two members still up (on a loaded
	// machine a probe may be late, which makes a member locally suspect).
	// One scrape for every state: a member moving from alive to suspect
	// between two scrapes would be counted twice.
	byState := gaugeByLabel(t, reg, "lsnode_membership_members")
	up := byState["alive"] + byState["suspect"]
	want := map[State]float64{StateDead: 0, StateLeft: 1, StateRefused: 0}
	for state, v := range want {
		if got := byState[string(state)]; got != v {
			t.Errorf("members{state=%q} = %v, want %v", state, got, v)
		}
	}
	if up != 2 {
		t.Errorf("members alive+suspect = %v, want 2", up)
	}
	if err := nodes[0].m.Shutdown(); err != nil {
		t.Fatal(err)
	}
	if mfs, _ := reg.Gather(); len(mfs) != 0 {
		t.Fatalf("%d metric families still registered after Shutdown", len(mfs))
	}
}
