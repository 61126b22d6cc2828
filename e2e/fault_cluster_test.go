//go:build e2e

package e2e

// The cluster of the fault tests: N `lsnode serve` processes,
// each with its own data dir and ports, and the means to hurt them:
// kill -9 and restart, SIGSTOP/SIGCONT, a partition of the network, a
// skewed wall clock, a full disk.
//
// Where the test runs as root the nodes live in network namespaces
// (netns.go), one host each, so a partition is a real cut of the network;
// the data dir of one node sits on a small tmpfs the test mounts, so a
// full disk is a real ENOSPC. Without root the nodes run on 127.0.0.1 and
// those two fault kinds are skipped, loudly.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"golang.org/x/sys/unix"
)

// Ports of a node inside its own namespace (each host has its own address).
const (
	fcHTTPPort   = 8765
	fcGRPCPort   = 8766
	fcGossipPort = 7946
)

// faultClusterConfig shapes a cluster.
type faultClusterConfig struct {
	Nodes     int    // how many nodes
	Subnet    int    // 10.213.<Subnet>.0/24 for the namespaces (distinct per test)
	TmpfsSize string // size of the disk-full node's tmpfs, e.g. "256m"
	Seed      int64  // printed in the kept-files message
}

// faultNode is one member of the cluster.
type faultNode struct {
	idx     int
	name    string
	host    string // address the node binds (its namespace's, or 127.0.0.1)
	http    int
	grpc    int
	gossip  int
	dataDir string
	url     string // base URL, set by the first start
	replica string // replica id, read after the first start

	mu      sync.Mutex
	proc    *lsnodeProc
	skew    time.Duration // --test-clock-offset in force
	stopped bool          // SIGSTOP in force
	down    bool          // killed on purpose, not yet restarted
}

// faultCluster is the running cluster.
type faultCluster struct {
	t     *testing.T
	cfg   faultClusterConfig
	net   *testNet // nil on loopback (no root): no partitions
	nodes []*faultNode
	base  string // parent of the data dirs
	bin   string // the lsnode binary (for the CLI clients)
	token string // bearer token of every node (a non-loopback bind needs one)

	started time.Time // when the cluster was up

	diskNode  int    // index of the node on the tmpfs, -1 when none
	tmpfsDir  string // mount point
	skipKinds map[faultKind]string
	findings  *faultFindings
}

// faultFindings collects problems seen while the faults run (a node that
// exited on its own, a restart that failed); the checker reports them.
type faultFindings struct {
	mu   sync.Mutex
	list []string
}

func (f *faultFindings) add(format string, a ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list = append(f.list, fmt.Sprintf(format, a...))
}

func (f *faultFindings) all() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.list...)
}

// newFaultCluster starts the cluster and waits until every node sees every
// other alive. Everything it starts or mounts is undone in t.Cleanup; on a
// failed test the data dirs and logs are copied to a kept directory first.
func newFaultCluster(t *testing.T, cfg faultClusterConfig) *faultCluster {
	t.Helper()
	c := &faultCluster{t: t, cfg: cfg, base: t.TempDir(), bin: lsnodeBin(t), diskNode: -1,
		token:     fmt.Sprintf("fault-token-%d", cfg.Seed),
		skipKinds: map[faultKind]string{}, findings: &faultFindings{}}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("ip"); err == nil {
			c.net = newTestNet(t, cfg.Nodes, cfg.Subnet)
		}
	}
	if c.net == nil {
		msg := "FAULT KIND SKIPPED: partition — network namespaces need root and iproute2's ip; the nodes run on 127.0.0.1"
		fmt.Fprintln(os.Stderr, "\n*** "+msg+" ***")
		t.Log(msg)
		c.skipKinds[faultPartition] = msg
	}
	c.diskNode = int(uint64(cfg.Seed) % uint64(cfg.Nodes))
	if err := c.mountTmpfs(); err != nil {
		msg := fmt.Sprintf("FAULT KIND SKIPPED: disk-full — cannot mount a tmpfs for node %d (%v); "+
			"a read-only chmod does not stop root or an open SQLite file, so nothing replaces it", c.diskNode, err)
		fmt.Fprintln(os.Stderr, "\n*** "+msg+" ***")
		t.Log(msg)
		c.skipKinds[faultDiskFull] = msg
		c.diskNode = -1
	}
	t.Cleanup(c.keepOnFailure) // runs after the nodes stop, before the dirs go
	for i := 0; i < cfg.Nodes; i++ {
		c.nodes = append(c.nodes, c.newNode(i))
	}
	for _, n := range c.nodes {
		c.start(n)
	}
	t.Cleanup(c.release) // runs first: no node is left frozen for its stop
	c.waitMembers(60 * time.Second)
	c.started = time.Now()
	return c
}

// newNode lays out node i: name, address, ports and data dir.
func (c *faultCluster) newNode(i int) *faultNode {
	n := &faultNode{idx: i, name: "f" + strconv.Itoa(i)}
	if c.net != nil {
		n.host, n.http, n.grpc, n.gossip = c.net.Addr(i), fcHTTPPort, fcGRPCPort, fcGossipPort
	} else {
		n.host, n.http, n.grpc, n.gossip = "127.0.0.1", freePort(c.t), freePort(c.t), freePort(c.t)
	}
	n.dataDir = filepath.Join(c.base, n.name)
	if i == c.diskNode {
		n.dataDir = filepath.Join(c.tmpfsDir, "data")
	}
	return n
}

// args are the serve flags of node n (the harness adds --data and --http).
func (c *faultCluster) args(n *faultNode) []string {
	var join []string
	for _, o := range c.nodes {
		if o != n {
			join = append(join, hostPort(o.host, o.gossip))
		}
	}
	args := []string{"--cluster-id", "lsnode-fault", "--name", n.name,
		"--grpc", hostPort(n.host, n.grpc), "--gossip", hostPort(n.host, n.gossip),
		"--join", strings.Join(join, ","), "--rejoin-interval", "2s"}
	if n.skew != 0 {
		args = append(args, "--test-clock-offset", n.skew.String())
	}
	return args
}

func hostPort(host string, port int) string { return host + ":" + strconv.Itoa(port) }

// start starts node n for the first time.
func (c *faultCluster) start(n *faultNode) {
	c.t.Helper()
	opts := nodeOptions{DataDir: n.dataDir, Port: n.http, Args: c.args(n), Token: c.token}
	if c.net != nil {
		opts.Netns, opts.Host = c.net.Netns(n.idx), n.host
	}
	n.proc = startLsnode(c.t, opts)
	n.url = n.proc.URL
	id, err := faultReplicaID(n.proc.URL, c.token)
	if err != nil {
		c.t.Fatalf("node %s: replica id: %v", n.name, err)
	}
	n.replica = id
	c.t.Logf("node %s: %s replica %s data %s", n.name, n.proc.URL, id, n.dataDir)
}

// URL is node n's base URL; it stays the same across restarts.
func (n *faultNode) URL() string { return n.url }

// kill9 ends node n with SIGKILL (no shutdown at all).
func (c *faultCluster) kill9(n *faultNode) {
	n.mu.Lock()
	n.down = true
	n.mu.Unlock()
	n.proc.Kill()
}

// restart starts node n again (same ports and data dir) with its current
// skew, after a kill9 or to change the skew (then it stops it first with
// SIGTERM, a clean shutdown).
func (c *faultCluster) restart(n *faultNode) error {
	if err := n.proc.Stop(); err != nil {
		c.findings.add("node %s: clean stop before a restart failed: %v", n.name, err)
	}
	n.proc.opts.Args = c.args(n)
	n.proc.opts.Port = n.http
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = n.proc.start(); err == nil {
			break
		}
		time.Sleep(time.Second)
	}
	n.mu.Lock()
	n.down = false
	n.mu.Unlock()
	return err
}

// signal sends SIGSTOP or SIGCONT to node n's process.
func (c *faultCluster) signal(n *faultNode, sig syscall.Signal) error {
	n.proc.mu.Lock()
	cmd, done := n.proc.cmd, n.proc.done
	n.proc.mu.Unlock()
	select {
	case <-done:
		return fmt.Errorf("node %s is not running", n.name)
	default:
	}
	n.mu.Lock()
	n.stopped = sig == syscall.SIGSTOP
	n.mu.Unlock()
	return cmd.Process.Signal(sig)
}

// running reports whether node n's process is alive.
func (n *faultNode) running() bool {
	n.proc.mu.Lock()
	done := n.proc.done
	n.proc.mu.Unlock()
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// reviveCrashed restarts every node whose process ended without the test
// killing it, and records that as a finding (a node must not exit on a
// fault it can survive, such as a full disk).
func (c *faultCluster) reviveCrashed() {
	for _, n := range c.nodes {
		n.mu.Lock()
		down := n.down
		n.mu.Unlock()
		if down || n.running() {
			continue
		}
		logs := n.proc.Logs()
		c.findings.add("node %s exited on its own (%v); last log lines:\n%s", n.name, n.proc.exitErr(), faultTail(logs, 15))
		if err := c.restart(n); err != nil {
			c.findings.add("node %s: restart after its own exit failed: %v", n.name, err)
		}
	}
}

// release undoes every fault still in force: SIGCONT, heal, free the disk.
// The cleanup of a failed test calls it too, so no node is left frozen.
func (c *faultCluster) release() {
	for _, n := range c.nodes {
		n.mu.Lock()
		stopped := n.stopped
		n.mu.Unlock()
		if stopped {
			_ = c.signal(n, syscall.SIGCONT)
		}
	}
	if c.net != nil {
		c.net.Heal()
	}
	if c.tmpfsDir != "" {
		_ = os.Remove(filepath.Join(c.tmpfsDir, "filler"))
	}
}

// mountTmpfs mounts a tmpfs of cfg.TmpfsSize for the disk-full node.
func (c *faultCluster) mountTmpfs() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("not root")
	}
	dir := filepath.Join(c.base, "tmpfs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+c.cfg.TmpfsSize+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mount: %v: %s", err, strings.TrimSpace(string(out)))
	}
	c.tmpfsDir = dir
	c.t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			// A process still holding a file keeps it busy; lazily detach.
			if out2, err2 := exec.Command("umount", "-l", dir).CombinedOutput(); err2 != nil {
				c.t.Errorf("umount %s: %v: %s / %v: %s", dir, err, out, err2, out2)
			}
		}
	})
	return nil
}

// fillDisk allocates a filler file over the tmpfs's free space (one
// fallocate, so a large tmpfs fills at once), then writes until ENOSPC.
func (c *faultCluster) fillDisk() (int64, error) {
	f, err := os.OpenFile(filepath.Join(c.tmpfsDir, "filler"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var st unix.Statfs_t
	if err := unix.Statfs(c.tmpfsDir, &st); err != nil {
		return 0, err
	}
	// Allocate all but 16 MiB of the free space at once (the node writes
	// meanwhile; a failed fallocate of gigabytes costs seconds); on ENOSPC
	// ask for less, then write out the rest.
	var off int64
	for chunk := int64(st.Bavail)*st.Bsize - 16<<20; chunk >= 1<<20; {
		err := unix.Fallocate(int(f.Fd()), 0, off, chunk)
		switch {
		case err == nil:
			off += chunk
		case errors.Is(err, unix.ENOSPC):
			chunk /= 2
		default:
			return 0, fmt.Errorf("fallocate %d bytes: %w", chunk, err)
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return 0, err
	}
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, unix.ENOSPC) && len(buf) > 512 {
				buf = buf[:len(buf)/8] // the last pages: smaller writes
				continue
			}
			if errors.Is(err, unix.ENOSPC) {
				fi, serr := f.Stat()
				if serr != nil {
					return 0, serr
				}
				return fi.Size(), nil
			}
			return 0, err
		}
	}
}

// freeDisk removes the filler.
func (c *faultCluster) freeDisk() error {
	return os.Remove(filepath.Join(c.tmpfsDir, "filler"))
}

// waitMembers waits until every node's /sync/peers lists every node alive.
func (c *faultCluster) waitMembers(within time.Duration) {
	c.t.Helper()
	ok, last := testwait.Poll(within, func() (bool, string) {
		for _, n := range c.nodes {
			m, err := faultMembers(n.URL(), c.token)
			if err != nil {
				return false, fmt.Sprintf("%s: %v", n.name, err)
			}
			for _, o := range c.nodes {
				if m[o.name].State != "alive" {
					return false, fmt.Sprintf("%s sees %s as %q", n.name, o.name, m[o.name].State)
				}
			}
		}
		return true, ""
	})
	if !ok {
		c.t.Fatalf("cluster did not form within %v: %s", within, last)
	}
}

// keepOnFailure copies every data dir and log of a failed test to a
// directory under $TMPDIR that outlives the test, and names it.
func (c *faultCluster) keepOnFailure() {
	c.release()
	if !c.t.Failed() {
		return
	}
	dir, err := os.MkdirTemp("", fmt.Sprintf("lsnode-fault-seed%d-", c.cfg.Seed))
	if err != nil {
		c.t.Errorf("keep files: %v", err)
		return
	}
	for _, n := range c.nodes {
		if n.proc == nil {
			continue
		}
		_ = n.proc.Stop() // the files at rest; its own cleanup then does nothing
		dst := filepath.Join(dir, n.name)
		if err := copyTree(n.dataDir, filepath.Join(dst, "data")); err != nil {
			c.t.Logf("keep %s data: %v", n.name, err)
		}
		_ = os.WriteFile(filepath.Join(dst, "lsnode.log"), []byte(n.proc.Logs()), 0o644)
	}
	msg := fmt.Sprintf("FAULT TEST FAILED with seed %d: data dirs and logs kept in %s (rerun with LSNODE_FAULT_SEED=%d)",
		c.cfg.Seed, dir, c.cfg.Seed)
	fmt.Fprintln(os.Stderr, "\n*** "+msg+" ***")
	c.t.Log(msg)
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// faultTail is the last n lines of s.
func faultTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// faultHTTP is the client of the checker and the schedule (not the load).
var faultHTTP = &http.Client{Timeout: 10 * time.Second}

// faultGetJSON GETs base+path (with a bearer token when one is given) and
// decodes the JSON answer into out.
func faultGetJSON(base, token, path string, out any) error {
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := faultHTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %.300s", path, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("GET %s: %w: %.300s", path, err, raw)
	}
	return nil
}

// faultReplicaID reads a node's replica id.
func faultReplicaID(base, token string) (string, error) {
	var vv struct {
		ReplicaID string `json:"replica_id"`
	}
	err := faultGetJSON(base, token, "/sync/version_vector", &vv)
	return vv.ReplicaID, err
}

// faultVV reads a node's version vector.
func faultVV(base, token string) (map[string]int64, error) {
	var vv struct {
		VV map[string]int64 `json:"version_vector"`
	}
	err := faultGetJSON(base, token, "/sync/version_vector", &vv)
	return vv.VV, err
}

// faultMember is one row of /sync/peers' lsnode members.
type faultMember struct {
	Name      string   `json:"name"`
	ReplicaID string   `json:"replica_id"`
	State     string   `json:"state"`
	Self      bool     `json:"self"`
	LagOps    *int64   `json:"lag_ops"`
	ClockMs   *float64 `json:"clock_offset_ms"`
}

// faultMembers reads a node's member rows by name.
func faultMembers(base, token string) (map[string]faultMember, error) {
	var body struct {
		Lsnode struct {
			Members []faultMember `json:"members"`
		} `json:"lsnode"`
	}
	if err := faultGetJSON(base, token, "/sync/peers", &body); err != nil {
		return nil, err
	}
	out := map[string]faultMember{}
	for _, m := range body.Lsnode.Members {
		out[m.Name] = m
	}
	return out, nil
}
