//go:build e2e

package e2e

import (
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testpki"
	"github.com/lsnode/lsnode/internal/testwait"
)

// Gossip membership between real `lsnode serve` processes:
// joining through one seed, a graceful leave, a SIGKILL and a restart on
// the same data dir, a long partition between network namespaces that
// heals by itself, and strangers (another cluster id, another gossip key)
// kept out. Replication follows membership: members found by gossip are
// replicated with, so every scenario also checks the writes.

const (
	mbCluster = "e2e-mem"
	// mbStateLimit bounds a change of member state: detection takes about
	// 3.5 s (node/membership/tuning.go), a join well under 1 s.
	mbStateLimit = 30 * time.Second
)

// mbNode is one gossiping node.
type mbNode struct {
	name, gossip, grpc string
	p                  *lsnodeProc
}

// mbOptions shape one node of mbStart.
type mbOptions struct {
	cluster string   // "" means mbCluster
	join    string   // gossip address to join, "" for none
	keyFile string   // gossip key file, "" for none
	extra   []string // more serve flags
	// tlsCA, when set, gives the node a certificate of this CA and turns
	// on HTTPS and mutual TLS for replication (--tls-ca).
	tlsCA *testpki.CA
}

// mbStart starts a gossiping node on 127.0.0.1 named name.
func mbStart(t *testing.T, name string, o mbOptions) *mbNode {
	t.Helper()
	n := &mbNode{name: name, gossip: "127.0.0.1:" + strconv.Itoa(freePort(t)), grpc: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	if o.cluster == "" {
		o.cluster = mbCluster
	}
	args := []string{"--cluster-id", o.cluster, "--name", name, "--gossip", n.gossip, "--grpc", n.grpc}
	if o.join != "" {
		args = append(args, "--join", o.join)
	}
	if o.keyFile != "" {
		args = append(args, "--gossip-key-file", o.keyFile)
	}
	opts := nodeOptions{Args: append(args, o.extra...)}
	if o.tlsCA != nil {
		cert, key := o.tlsCA.Issue(t, name)
		opts.Args = append(opts.Args, "--tls-cert", cert, "--tls-key", key, "--tls-ca", o.tlsCA.CertFile)
		opts.CAFile = o.tlsCA.CertFile
	}
	n.p = startLsnode(t, opts)
	return n
}

// mbProcs and mbNames list the processes and names of nodes.
func mbProcs(nodes ...*mbNode) []*lsnodeProc {
	var out []*lsnodeProc
	for _, n := range nodes {
		out = append(out, n.p)
	}
	return out
}

func mbNames(nodes ...*mbNode) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.name)
	}
	return out
}

// mbKeyFile writes a gossip key file holding one AES-256 key made from
// seed (fixed bytes: the test is deterministic and the key is a test's).
func mbKeyFile(t *testing.T, seed byte) string {
	t.Helper()
	key := make([]byte, 32)
	for i := range key {
		key[i] = seed + byte(i)*7
	}
	f := filepath.Join(t.TempDir(), "gossip.key")
	if err := os.WriteFile(f, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestMembership_JoinLeaveKillRejoin: four nodes join through one seed and
// all see each other alive (`lsnode peers --json` and the table); one
// leaves on SIGTERM and is shown left; one is killed with SIGKILL, shown
// dead, restarted on its data dir, alive again, and catches up on the
// writes it missed.
func TestMembership_JoinLeaveKillRejoin(t *testing.T) {
	lsnodeBin(t)
	seed := mbStart(t, "m0", mbOptions{})
	nodes := []*mbNode{seed}
	for i := 1; i < 4; i++ {
		nodes = append(nodes, mbStart(t, fmt.Sprintf("m%d", i), mbOptions{join: seed.gossip}))
	}
	all := mbProcs(nodes...)
	started := time.Now()
	rpWaitStates(t, mbStateLimit, all, rpAll("alive", mbNames(nodes...)...))
	t.Logf("4 nodes joined through one seed, all alive everywhere %v after the last start", time.Since(started).Round(time.Millisecond))

	// Every node's `lsnode peers --json`: every member alive, itself first
	// and marked self, addresses and replica ids as the members announce.
	ids := map[string]string{}
	for _, n := range nodes {
		ids[n.name] = rpReplicaID(t, n.p)
	}
	for _, n := range nodes {
		rows := rpCLIMembers(t, n.p)
		if len(rows) != len(nodes) || rows[0].Name != n.name || !rows[0].Self {
			t.Fatalf("%s: lsnode peers --json: want %d members, itself first: %+v", n.name, len(nodes), rows)
		}
		for _, r := range rows {
			m := mbByName(t, nodes, r.Name)
			if r.State != "alive" || r.ReplicaID != ids[m.name] || r.GossipAddr != m.gossip ||
				r.GRPCAddr != m.grpc || r.HTTPAddr != m.p.URL || r.Self != (m == n) {
				t.Fatalf("%s: lsnode peers --json row %+v: want alive %s gossip %s grpc %s http %s",
					n.name, r, ids[m.name], m.gossip, m.grpc, m.p.URL)
			}
		}
	}
	mbCheckTable(t, seed, nodes)

	// Writes on every node replicate (members found by gossip are
	// replicated with).
	var written []string
	for _, n := range nodes {
		written = append(written, rpMustAppend(t, n.p, "agent-"+n.name, 5)...)
	}
	rpConverged(t, rpConvergeLimit, written, all...)

	// A graceful leave: SIGTERM, and the others show it left.
	leaver := nodes[3]
	if err := leaver.p.Stop(); err != nil {
		t.Fatalf("stop %s: %v\n%s", leaver.name, err, leaver.p.Logs())
	}
	rest := mbProcs(nodes[:3]...)
	rpWaitStates(t, mbStateLimit, rest, map[string]string{leaver.name: "left"})
	code, out, _ := seed.p.CLI("peers", "--status", "^left$")
	if code != 0 || !regexp.MustCompile(`(?m)^m3\s+rep_\S+\s+`+regexp.QuoteMeta(leaver.gossip)+`\s+\S+\s+left\s`).MatchString(out) {
		t.Fatalf("lsnode peers --status ^left$: exit %d, want m3 left:\n%s", code, out)
	}

	// A crash: SIGKILL, shown dead; writes while it is down; a restart on
	// the same data dir rejoins (alive again everywhere) and catches up.
	crashed := nodes[2]
	crashed.p.Kill()
	killed := time.Now()
	rpWaitStates(t, mbStateLimit, rest[:2], map[string]string{crashed.name: "dead"})
	t.Logf("SIGKILLed %s shown dead on both survivors after %v", crashed.name, time.Since(killed).Round(time.Millisecond))
	missed := rpMustAppend(t, seed.p, "agent-m0", 10)
	missed = append(missed, rpMustAppend(t, nodes[1].p, "agent-m1", 10)...)
	written = append(written, missed...)
	crashed.p.Restart()
	restarted := time.Now()
	rpWaitStates(t, mbStateLimit, rest, rpAll("alive", "m0", "m1", "m2"))
	// The survivors still show the leaver left. (The restarted node does
	// not list it: memberlist passes on left and dead members only to
	// nodes that knew them alive.)
	rpWaitStates(t, mbStateLimit, rest[:2], map[string]string{leaver.name: "left"})
	rpConverged(t, rpConvergeLimit, written, rest...)
	if got := rpReplicaID(t, crashed.p); got != ids[crashed.name] {
		t.Fatalf("restarted %s has replica id %s, want %s", crashed.name, got, ids[crashed.name])
	}
	t.Logf("restarted %s alive everywhere and caught up on %d writes %v after its restart",
		crashed.name, len(missed), time.Since(restarted).Round(time.Millisecond))
}

func mbByName(t *testing.T, nodes []*mbNode, name string) *mbNode {
	t.Helper()
	for _, n := range nodes {
		if n.name == name {
			return n
		}
	}
	t.Fatalf("unknown member %q", name)
	return nil
}

// mbCheckTable checks the columns of `lsnode peers` on node at against
// the members (golden-ish: the values that vary, such as the lag and the
// age of the last sync, are checked by form).
func mbCheckTable(t *testing.T, at *mbNode, nodes []*mbNode) {
	t.Helper()
	code, out, errOut := at.p.CLI("peers")
	if code != 0 {
		t.Fatalf("lsnode peers: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("lsnode peers on %s:\n%s", at.name, out)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	cols := regexp.MustCompile(`\s{2,}`)
	wantHeader := []string{"NAME", "REPLICA", "GOSSIP ADDR", "GRPC ADDR", "STATE", "LAG OPS", "LAG SECONDS",
		"LAST SYNC", "CLOCK OFFSET", "VERSION"}
	if got := cols.Split(strings.TrimSpace(lines[0]), -1); !slices.Equal(got, wantHeader) {
		t.Fatalf("lsnode peers header %q, want %q", got, wantHeader)
	}
	if len(lines) != 1+len(nodes) {
		t.Fatalf("lsnode peers: %d rows, want %d:\n%s", len(lines)-1, len(nodes), out)
	}
	// Every column starts where its header does (tabwriter alignment).
	for _, h := range wantHeader[1:] {
		at := strings.Index(lines[0], h)
		for _, l := range lines[1:] {
			if len(l) <= at || l[at] == ' ' || l[at-1] != ' ' {
				t.Fatalf("lsnode peers: column %q not aligned in row %q", h, l)
			}
		}
	}
	replica := regexp.MustCompile(`^rep_[0-9a-f]{32}$`)
	for i, l := range lines[1:] {
		f := cols.Split(strings.TrimSpace(l), -1)
		if len(f) != len(wantHeader) {
			t.Fatalf("lsnode peers row %q: %d columns, want %d", l, len(f), len(wantHeader))
		}
		self := i == 0
		name := strings.TrimSuffix(f[0], " (self)")
		if (name != f[0]) != self {
			t.Fatalf("lsnode peers row %q: only the first row is (self)", l)
		}
		m := mbByName(t, nodes, name)
		if !replica.MatchString(f[1]) || f[2] != m.gossip || f[3] != m.grpc || f[4] != "alive" {
			t.Fatalf("lsnode peers row %q: want %s, a replica id, %s, %s, alive", l, name, m.gossip, m.grpc)
		}
		if self {
			if !slices.Equal(f[5:9], []string{"-", "-", "-", "-"}) {
				t.Fatalf("lsnode peers self row %q: want no lag, sync or offset", l)
			}
		} else {
			lag, err := strconv.Atoi(f[5])
			if err != nil || lag < 0 || !regexp.MustCompile(`^(-|\d+\.\d)$`).MatchString(f[6]) ||
				!regexp.MustCompile(`^(never|just now|\d+s ago)$`).MatchString(f[7]) ||
				!regexp.MustCompile(`^(-|[+-]\d+\.\dms|[+-]\d+\.\d\ds)$`).MatchString(f[8]) {
				t.Fatalf("lsnode peers row %q: lag, lag seconds, last sync or clock offset malformed", l)
			}
		}
		if f[9] == "" || f[9] == "-" {
			t.Fatalf("lsnode peers row %q: no version", l)
		}
	}
	// A filter that matches nobody prints the header alone.
	if code, out, _ := at.p.CLI("peers", "--status", "^dead$"); code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("lsnode peers --status ^dead$: exit %d, want the header alone:\n%s", code, out)
	}
}

// TestMembership_StrangersKeptOut: beside a cluster of two nodes sharing a
// gossip key, a node with the same key but another cluster id is shown
// refused (with the reason) and never alive; a node with the right
// cluster id but another key never gets in at all. Both keep trying
// (rejoin every second) while the test watches.
func TestMembership_StrangersKeptOut(t *testing.T) {
	lsnodeBin(t)
	key, otherKey := mbKeyFile(t, 11), mbKeyFile(t, 97)
	fast := []string{"--rejoin-interval", "1s"}
	seed := mbStart(t, "k0", mbOptions{keyFile: key, extra: fast})
	k1 := mbStart(t, "k1", mbOptions{keyFile: key, join: seed.gossip, extra: fast})
	members := mbProcs(seed, k1)
	rpWaitStates(t, mbStateLimit, members, rpAll("alive", "k0", "k1"))

	foreign := mbStart(t, "foreign-cluster", mbOptions{cluster: "e2e-other", keyFile: key, join: seed.gossip, extra: fast})
	wrongKey := mbStart(t, "wrong-key", mbOptions{keyFile: otherKey, join: seed.gossip, extra: fast})

	// Watch until every sign of the refusals is there, and for at least
	// five rejoin rounds of the strangers; in every look, neither stranger
	// is alive on a member (the wrong key one not listed at all, the other
	// cluster's refused if listed), and the members are not alive on them.
	watchFrom := time.Now()
	looks := 0
	kept, _ := testwait.Poll(mbStateLimit, func() (bool, string) {
		looks++
		done := time.Since(watchFrom) > 5*time.Second
		for _, p := range members {
			st, err := rpStates(p)
			if err != nil {
				t.Fatal(err)
			}
			if st["wrong-key"] == "alive" || st["foreign-cluster"] == "alive" {
				t.Fatalf("%s lists a stranger alive: %v", p.URL, st)
			}
			if _, ok := st["wrong-key"]; ok {
				t.Fatalf("%s lists the node with the wrong gossip key: %v", p.URL, st)
			}
			if fc, ok := st["foreign-cluster"]; ok && fc != "refused" {
				t.Fatalf("%s lists the node of another cluster as %s: %v", p.URL, fc, st)
			}
		}
		// The seed, which the stranger contacts, shows it refused; k1
		// hears of it only if the seed passed it on, which it must not.
		if st, err := rpStates(seed.p); err != nil {
			t.Fatal(err)
		} else {
			done = done && st["foreign-cluster"] == "refused"
		}
		for _, s := range []*mbNode{foreign, wrongKey} {
			st, err := rpStates(s.p)
			if err != nil {
				t.Fatal(err)
			}
			if st["k0"] == "alive" || st["k1"] == "alive" {
				t.Fatalf("stranger %s sees members alive: %v", s.name, st)
			}
		}
		return done && strings.Contains(wrongKey.p.Logs(), "gossip join incomplete"), ""
	})
	if !kept {
		t.Fatalf("strangers not refused everywhere within %v; k0 log:\n%s\nwrong-key log:\n%s",
			mbStateLimit, seed.p.Logs(), wrongKey.p.Logs())
	}
	t.Logf("strangers kept out: %d looks over %v", looks, time.Since(watchFrom).Round(time.Millisecond))

	// The refusal and its reason, in JSON and in the table.
	for _, p := range members {
		var row *rpMember
		for _, m := range rpCLIMembers(t, p) {
			if m.Name == "foreign-cluster" {
				row = &m
			}
		}
		if row == nil && p != seed.p {
			continue // never heard of it: fine for a member the stranger did not contact
		}
		if row == nil || row.State != "refused" || !strings.Contains(row.Reason, "e2e-other") {
			t.Fatalf("%s: lsnode peers --json: want foreign-cluster refused naming e2e-other: %+v", p.URL, row)
		}
	}
	code, out, _ := seed.p.CLI("peers")
	if code != 0 || !regexp.MustCompile(`(?m)^foreign-cluster\s.*\srefused\s`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^foreign-cluster refused: .*e2e-other`).MatchString(out) {
		t.Fatalf("lsnode peers: exit %d, want foreign-cluster refused with its reason:\n%s", code, out)
	}
	t.Logf("lsnode peers on k0 with strangers about:\n%s", out)
	rpLogsContain(t, mbStateLimit, seed.p, "gossip member refused")

	// Nothing of theirs crossed.
	written := append(rpMustAppend(t, seed.p, "agent-k0", 3), rpMustAppend(t, k1.p, "agent-k1", 3)...)
	rpConverged(t, rpConvergeLimit, written, members...)
	for _, s := range []*mbNode{foreign, wrongKey} {
		if vv, err := rpVector(s.p); err != nil || len(vv) != 0 {
			t.Fatalf("stranger %s holds ops of others: %v %v", s.name, vv, err)
		}
	}
}

// TestMembership_PartitionHeals: four nodes on test hosts in network
// namespaces (e2e/netns.go), cut two from two for longer than it takes
// each side to declare the other dead. Each side keeps taking writes.
// After the cut is healed, with no operator, every node sees every node
// alive again and all converge on the writes of both sides. The rejoin
// loop runs every second (--rejoin-interval) instead of every 30 s.
func TestMembership_PartitionHeals(t *testing.T) {
	lsnodeBin(t)
	tn := newTestNet(t, 4, 220)
	const token = "e2e-partition-token" // off loopback, serve wants one
	var nodes []*mbNode
	for i := 0; i < tn.Len(); i++ {
		addr := tn.Addr(i)
		n := &mbNode{name: fmt.Sprintf("p%d", i), gossip: net.JoinHostPort(addr, "7946"), grpc: net.JoinHostPort(addr, "7000")}
		args := []string{"--cluster-id", mbCluster, "--name", n.name, "--gossip", n.gossip, "--grpc", n.grpc,
			"--rejoin-interval", "1s"}
		if i > 0 {
			args = append(args, "--join", nodes[0].gossip)
		}
		n.p = startLsnode(t, nodeOptions{Netns: tn.Netns(i), Host: addr, Port: 8765, Token: token, Args: args})
		nodes = append(nodes, n)
	}
	all := mbProcs(nodes...)
	rpWaitStates(t, mbStateLimit, all, rpAll("alive", "p0", "p1", "p2", "p3"))
	before := append(rpMustAppend(t, nodes[0].p, "agent-p0", 5), rpMustAppend(t, nodes[3].p, "agent-p3", 5)...)
	rpConverged(t, rpConvergeLimit, before, all...)

	// The cut: each side declares the other dead, and keeps working.
	sideA, sideB := mbProcs(nodes[0], nodes[1]), mbProcs(nodes[2], nodes[3])
	tn.Partition([]int{0, 1}, []int{2, 3})
	cut := time.Now()
	rpWaitStates(t, mbStateLimit, sideA, map[string]string{"p0": "alive", "p1": "alive", "p2": "dead", "p3": "dead"})
	rpWaitStates(t, mbStateLimit, sideB, map[string]string{"p0": "dead", "p1": "dead", "p2": "alive", "p3": "alive"})
	deadBoth := time.Since(cut)
	// LSNODE_E2E_PARTITION_HOLD keeps the cut longer, e.g. 40s: past
	// memberlist's 30 s of gossip to dead members, only the rejoin loop
	// brings the sides together again.
	if hold, err := time.ParseDuration(os.Getenv("LSNODE_E2E_PARTITION_HOLD")); err == nil && hold > 0 {
		t.Logf("holding the partition for %v (LSNODE_E2E_PARTITION_HOLD)", hold)
		time.Sleep(time.Until(cut.Add(hold)))
	}
	writesA := append(append([]string{}, before...), rpMustAppend(t, nodes[1].p, "agent-p1", 10)...)
	writesB := append(append([]string{}, before...), rpMustAppend(t, nodes[2].p, "agent-p2", 10)...)
	rpConverged(t, rpConvergeLimit, writesA, sideA...)
	rpConverged(t, rpConvergeLimit, writesB, sideB...)
	// Neither side has the other's writes (the cut is real).
	for _, p := range sideA {
		if have, err := rpOpIDs(p); err != nil {
			t.Fatal(err)
		} else if _, n := rpMissing(writesB[len(before):], have); n != 10 {
			t.Fatalf("%s got %d of side B's writes through the partition", p.URL, 10-n)
		}
	}
	partitioned := time.Since(cut)

	// The heal: no operator, just the network back.
	logMark := make([]int, len(nodes))
	for i, n := range nodes {
		logMark[i] = len(n.p.Logs())
	}
	tn.Heal()
	healed := time.Now()
	rpWaitStates(t, mbStateLimit, all, rpAll("alive", "p0", "p1", "p2", "p3"))
	aliveAfter := time.Since(healed)
	rpConverged(t, rpConvergeLimit, append(writesA, writesB[len(before):]...), all...)
	t.Logf("partition 2|2: both sides declared the other dead %v after the cut; cut for %v; after the heal all alive in %v, converged in %v",
		deadBoth.Round(time.Millisecond), partitioned.Round(time.Millisecond), aliveAfter.Round(time.Millisecond),
		time.Since(healed).Round(time.Millisecond))
	rejoins := 0
	for i, n := range nodes {
		rejoins += strings.Count(n.p.Logs()[logMark[i]:], `msg=rejoined`)
	}
	t.Logf("rejoin-loop joins logged after the heal: %d (0: memberlist's own gossip to the dead members got there first)", rejoins)
}
