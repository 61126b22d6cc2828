//go:build e2e

package e2e

// Test hosts in network namespaces, for tests of what crosses a network:
// partitions, an isolated host, addresses that differ per host.
//
// Layout (every name unique to the test, so parallel tests and runs do
// not meet; <id> is <pid>-<seq>, <tag> a short form of it):
//
//	root namespace (the test)            switch namespace lsn-<id>-sw
//	  lsn<tag>a 10.213.X.254/32  ───veth───  upa ─┐ bridge bra
//	  lsn<tag>b 10.213.X.254/32  ───veth───  upb ─┐ bridge brb
//	                                        h<i> ─┘ (on bra, or brb when cut off)
//	host namespace lsn-<id>-<i>: eth0 10.213.X.<i+1>/24 ───veth─── h<i>
//
// The bridges live in a namespace of their own rather than in the root
// one: the root namespace of a Docker machine has br_netfilter on and its
// iptables FORWARD policy is DROP, which would drop bridged frames; the
// switch namespace has no rules at all, and the test never touches the
// root namespace's firewall.
//
// The test reaches every host at its own address (Addr) through one of
// the two uplinks: a /32 route per host points at the uplink of the
// bridge the host is on. Both uplinks carry the same address and the same
// MAC, so a host's ARP entry for the test stays right when it changes
// bridge. The hosts have no default route and the root namespace answers
// ARP only for its own address (no proxy ARP), so nothing crosses from one
// bridge to the other through it: each side of a partition only talks
// inside itself.

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// netnsSeq tells apart the networks of one test process.
var netnsSeq atomic.Int64

// netnsMu serialises the ip commands of every network in this process:
// they are quick, and the kernel's netns and link tables are shared.
var netnsMu sync.Mutex

// testNet is a set of test hosts on two bridges. Its methods are safe for
// concurrent use.
type testNet struct {
	t      testing.TB
	subnet int    // X in 10.213.X.0/24
	tag    string // unique part of every name
	sw     string // switch namespace
	hosts  []string

	mu     sync.Mutex
	bridge []string // per host: "bra", "brb" or "" (isolated)
}

// Subnets in use (10.213.X.0/24), one per test so that tests and
// concurrent runs of different tests never share one: 201-202 netns_test,
// 211-212 fault tests, 220 membership partition. Add yours here.

// newTestNet creates n hosts (namespaces lsn-<tag>-0 .. n-1) with
// addresses 10.213.<subnet>.1 .. n in one /24, all on bridge a. The test
// picks subnet (1..250) so that concurrent tests use distinct ones; a
// subnet already routed on this machine fails the test. Everything is
// removed in t.Cleanup, on failure too. The test is skipped, saying so
// loudly, unless it runs as root with iproute2's ip on PATH.
func newTestNet(t testing.TB, n, subnet int) *testNet {
	t.Helper()
	requireNetns(t)
	if n < 1 || n > 250 {
		t.Fatalf("netns: %d hosts: want 1..250", n)
	}
	if subnet < 1 || subnet > 250 {
		t.Fatalf("netns: subnet %d: want 1..250 (10.213.X.0/24)", subnet)
	}
	sweepStaleNetns(t)
	pid, seq := os.Getpid(), netnsSeq.Add(1)
	tn := &testNet{t: t, subnet: subnet, sw: fmt.Sprintf("lsn-%d-%d-sw", pid, seq), bridge: make([]string, n)}
	// The uplinks' names: pid and sequence in base 36 keep them within the
	// 15 bytes of an interface name ("lsn" + tag + "a"); they are only
	// needed unique among live tests (a dead test's go with its switch
	// namespace).
	tn.tag = uplinkTag(pid, seq)
	for i := 0; i < n; i++ {
		tn.hosts = append(tn.hosts, fmt.Sprintf("lsn-%d-%d-%d", pid, seq, i))
	}

	if out, err := ipOut("-4", "-o", "route", "show", "root", tn.prefix()+"0/24"); err != nil {
		t.Fatalf("netns: ip route show: %v", err)
	} else if strings.TrimSpace(out) != "" {
		t.Fatalf("netns: 10.213.%d.0/24 is already routed here (another test network?):\n%s", subnet, out)
	}

	t.Cleanup(tn.destroy) // registered first, so a half-built network goes too
	netnsMu.Lock()
	defer netnsMu.Unlock()
	tn.must("netns", "add", tn.sw)
	tn.must("-n", tn.sw, "link", "set", "lo", "up")
	const mac = "02:1d:d5:00:00:fe" // the test's side of both uplinks
	for _, b := range []string{"a", "b"} {
		br, up, root := "br"+b, "up"+b, tn.uplink(b)
		tn.must("-n", tn.sw, "link", "add", br, "type", "bridge")
		tn.must("-n", tn.sw, "link", "set", br, "up")
		tn.must("link", "add", root, "address", mac, "type", "veth", "peer", "name", up, "netns", tn.sw)
		tn.must("-n", tn.sw, "link", "set", up, "master", br)
		tn.must("-n", tn.sw, "link", "set", up, "up")
		tn.must("addr", "add", tn.prefix()+"254/32", "dev", root)
		tn.must("link", "set", root, "up")
	}
	for i, h := range tn.hosts {
		tn.must("netns", "add", h)
		tn.must("-n", h, "link", "set", "lo", "up")
		port := "h" + strconv.Itoa(i)
		tn.must("-n", tn.sw, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", h)
		tn.must("-n", h, "addr", "add", tn.Addr(i)+"/24", "dev", "eth0")
		tn.must("-n", h, "link", "set", "eth0", "up")
		tn.must("-n", tn.sw, "link", "set", port, "master", "bra")
		tn.must("-n", tn.sw, "link", "set", port, "up")
		tn.must("route", "add", tn.Addr(i)+"/32", "dev", tn.uplink("a"), "src", tn.prefix()+"254")
		tn.bridge[i] = "bra"
	}
	return tn
}

// requireNetns skips the test, loudly, where namespaces cannot be made.
func requireNetns(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIPPED — NETWORK NAMESPACE TEST NOT RUN: it needs root (ip netns add, veth, bridges); CI runs as root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("SKIPPED — NETWORK NAMESPACE TEST NOT RUN: no `ip` on PATH (install Debian's iproute2; scripts/tools.sh does)")
	}
}

// Len is the number of hosts.
func (tn *testNet) Len() int { return len(tn.hosts) }

// Addr is host i's address, 10.213.<subnet>.<i+1>.
func (tn *testNet) Addr(i int) string { return tn.prefix() + strconv.Itoa(i+1) }

// Netns is host i's namespace name (for `ip netns exec`).
func (tn *testNet) Netns(i int) string { return tn.hosts[i] }

// Command is name args... to run inside host i's namespace.
func (tn *testNet) Command(i int, name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", tn.hosts[i], name}, args...)...)
}

// Partition cuts groupA off from groupB: group B's hosts move to the
// second bridge, group A's to the first, so each side still talks inside
// itself. A host in neither group stays where it is; an isolated host
// named in a group joins that group's side.
func (tn *testNet) Partition(groupA, groupB []int) {
	tn.t.Helper()
	seen := map[int]bool{}
	for _, g := range [][]int{groupA, groupB} {
		for _, i := range g {
			if i < 0 || i >= len(tn.hosts) || seen[i] {
				tn.t.Fatalf("netns: Partition(%v, %v): bad or repeated host %d", groupA, groupB, i)
			}
			seen[i] = true
		}
	}
	for _, i := range groupA {
		tn.move(i, "bra")
	}
	for _, i := range groupB {
		tn.move(i, "brb")
	}
}

// Heal puts every host back on the first bridge.
func (tn *testNet) Heal() {
	tn.t.Helper()
	for i := range tn.hosts {
		tn.move(i, "bra")
	}
}

// Isolate takes host i off both bridges: it reaches no other host and
// the test cannot reach it either (use Command to look from inside).
// Heal or Partition puts it back.
func (tn *testNet) Isolate(i int) {
	tn.t.Helper()
	tn.move(i, "")
}

// move puts host i's port on bridge br ("" for none) and points the
// test's route to it at that bridge's uplink.
func (tn *testNet) move(i int, br string) {
	tn.t.Helper()
	tn.mu.Lock()
	defer tn.mu.Unlock()
	if tn.bridge[i] == br {
		return
	}
	netnsMu.Lock()
	defer netnsMu.Unlock()
	port := "h" + strconv.Itoa(i)
	if br == "" {
		tn.must("-n", tn.sw, "link", "set", port, "nomaster")
	} else {
		tn.must("-n", tn.sw, "link", "set", port, "master", br)
		tn.must("route", "replace", tn.Addr(i)+"/32", "dev", tn.uplink(br[2:]), "src", tn.prefix()+"254")
	}
	tn.bridge[i] = br
}

func (tn *testNet) prefix() string { return "10.213." + strconv.Itoa(tn.subnet) + "." }

func (tn *testNet) uplink(side string) string { return "lsn" + tn.tag + side }

// must runs ip args... and fails the test on an error.
func (tn *testNet) must(args ...string) {
	tn.t.Helper()
	if out, err := ipOut(args...); err != nil {
		tn.t.Fatalf("netns: ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// destroy removes the routes, uplinks and namespaces; deleting a
// namespace deletes the veths and bridges in it.
func (tn *testNet) destroy() {
	netnsMu.Lock()
	defer netnsMu.Unlock()
	for i := range tn.hosts {
		_, _ = ipOut("route", "del", tn.Addr(i)+"/32")
	}
	for _, side := range []string{"a", "b"} {
		_, _ = ipOut("link", "del", tn.uplink(side))
	}
	for _, ns := range append([]string{tn.sw}, tn.hosts...) {
		if out, err := ipOut("netns", "del", ns); err != nil && !strings.Contains(out, "No such file") {
			tn.t.Errorf("netns: ip netns del %s: %v\n%s", ns, err, out)
		}
	}
}

// sweepStaleNetns deletes namespaces (and so their links) left by test
// processes that died before their cleanup ran: lsn-<pid>-<seq>-*, where
// no process <pid> runs any more.
func sweepStaleNetns(t testing.TB) {
	out, err := ipOut("netns", "list")
	if err != nil {
		return
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "lsn-") {
			continue
		}
		if pid := stalePid(f[0]); pid > 0 {
			if seq, ok := strings.CutSuffix(strings.TrimPrefix(f[0], "lsn-"+strconv.Itoa(pid)+"-"), "-sw"); ok {
				// The uplinks would go with the switch namespace, but
				// only once the kernel gets round to it: delete them now.
				if n, err := strconv.ParseInt(seq, 10, 64); err == nil {
					tag := uplinkTag(pid, n)
					_, _ = ipOut("link", "del", "lsn"+tag+"a")
					_, _ = ipOut("link", "del", "lsn"+tag+"b")
				}
			}
			if _, err := ipOut("netns", "del", f[0]); err == nil {
				t.Logf("netns: removed %s, left by the dead process %d", f[0], pid)
			}
		}
	}
}

// uplinkTag is the short form of <pid>-<seq> in the uplinks' names.
func uplinkTag(pid int, seq int64) string {
	return strconv.FormatInt(int64(pid), 36) + "x" + strconv.FormatInt(seq, 36)
}

// stalePid returns the pid in a namespace name lsn-<pid>-<seq>-<host>
// when that process is gone, else 0.
func stalePid(name string) int {
	parts := strings.Split(name, "-")
	if len(parts) != 4 || parts[0] != "lsn" {
		return 0
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
		return 0
	}
	return pid
}

// ipOut runs ip with a time limit and returns its combined output.
func ipOut(args ...string) (string, error) {
	cmd := exec.Command("ip", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("ip %s: no answer within 30s", strings.Join(args, " "))
	}
}

// Listen opens a listener inside host i's namespace (on its address or
// 0.0.0.0); it is closed in t.Cleanup.
func (tn *testNet) Listen(i int, network, addr string) net.Listener {
	tn.t.Helper()
	var ln net.Listener
	err := inNetns(tn.hosts[i], func() (err error) {
		ln, err = net.Listen(network, addr)
		return err
	})
	if err != nil {
		tn.t.Fatalf("netns: listen %s %s in host %d: %v", network, addr, i, err)
	}
	tn.t.Cleanup(func() { ln.Close() })
	return ln
}

// Dial connects from inside host i's namespace (-1: from the test's own
// namespace) with a time limit.
func (tn *testNet) Dial(i int, network, addr string, timeout time.Duration) (net.Conn, error) {
	if i < 0 {
		return net.DialTimeout(network, addr, timeout)
	}
	var c net.Conn
	err := inNetns(tn.hosts[i], func() (err error) {
		c, err = net.DialTimeout(network, addr, timeout)
		return err
	})
	return c, err
}

// inNetns runs fn on an OS thread switched into the named namespace;
// sockets fn opens stay in that namespace. The thread switches back after
// fn, and is dropped (never reused by another goroutine) if it cannot.
func inNetns(name string, fn func() error) error {
	target, err := os.Open("/var/run/netns/" + name)
	if err != nil {
		return err
	}
	defer target.Close()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked if the switch back fails: the thread then exits with the goroutine
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			return
		}
		defer self.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %w", name, err)
			return
		}
		ferr := fn()
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns back from %s: %w", name, err)
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}
