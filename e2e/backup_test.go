//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// Backups, restores and joins from a snapshot on real processes
// (docs/operations.md, "Backups").

// bkMesh is a full mesh of n nodes on fixed gRPC ports, so a node can be
// replaced on its address.
type bkMesh struct {
	t     *testing.T
	grpc  []string
	nodes []*lsnodeProc
}

func newBKMesh(t *testing.T, n int) *bkMesh {
	m := &bkMesh{t: t, grpc: make([]string, n), nodes: make([]*lsnodeProc, n)}
	for i := range m.grpc {
		m.grpc[i] = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	}
	for i := range m.nodes {
		m.nodes[i] = m.start(i, "")
	}
	return m
}

// start runs node i on its gRPC address with every other node as a
// peer, on dir ("" a fresh one).
func (m *bkMesh) start(i int, dir string, extra ...string) *lsnodeProc {
	args := []string{"--cluster-id", rpCluster, "--name", fmt.Sprintf("b%d", i), "--grpc", m.grpc[i]}
	for j, addr := range m.grpc {
		if j != i {
			args = append(args, "--peer", addr)
		}
	}
	return startLsnode(m.t, nodeOptions{DataDir: dir, Args: append(args, extra...)})
}

// bkStatus is what these tests read of /statusz.
type bkStatus struct {
	ReplicaID string `json:"replica_id"`
	Log       struct {
		Quarantined int64 `json:"quarantined"`
	} `json:"log"`
	Recovering bool `json:"recovering_own_origin"`
}

func bkStatusOf(t *testing.T, p *lsnodeProc) bkStatus {
	t.Helper()
	var s bkStatus
	if err := rpDo(p, "GET", "/statusz", nil, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// bkNoQuarantine fails the test when a node quarantined anything, a
// conflict above all.
func bkNoQuarantine(t *testing.T, nodes ...*lsnodeProc) {
	t.Helper()
	for _, p := range nodes {
		if q := bkStatusOf(t, p).Log.Quarantined; q != 0 {
			t.Fatalf("%s quarantined %d items\n%s", p.URL, q, p.Logs())
		}
		if c := metricOrZero(scrapeMetrics(t, p), `lsnode_store_quarantined_total{reason="conflict"}`); c != 0 {
			t.Fatalf("%s counted %v conflicts", p.URL, c)
		}
	}
}

// bkWriter appends on p until stopped and keeps the acknowledged ids.
type bkWriter struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	ids  []string
	errs []string
}

func startWriter(p *lsnodeProc, agent string) *bkWriter {
	w := &bkWriter{stop: make(chan struct{})}
	w.wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-w.stop:
				return
			default:
			}
			id, err := rpAppend(p, agent, fmt.Sprintf("%s #%d", agent, i))
			w.mu.Lock()
			if err != nil {
				w.errs = append(w.errs, err.Error())
			} else {
				w.ids = append(w.ids, id)
			}
			w.mu.Unlock()
		}
	})
	return w
}

// waitMore waits until the writer has n more acknowledged ids than now.
func (w *bkWriter) waitMore(t *testing.T, n int) {
	t.Helper()
	want := w.acked() + n
	testwait.Until(t, rpConvergeLimit, fmt.Sprintf("%d more acknowledged writes", n), func() bool { return w.acked() >= want })
}

func (w *bkWriter) acked() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.ids)
}

// Stop ends the writer and returns its ids; a failed append fails the
// test.
func (w *bkWriter) Stop(t *testing.T) []string {
	t.Helper()
	close(w.stop)
	w.wg.Wait()
	if len(w.errs) > 0 {
		t.Fatalf("%d appends failed, e.g. %s", len(w.errs), w.errs[0])
	}
	return w.ids
}

// TestBackup_OldBackupRestoredJoinsWithoutConflict: three nodes write;
// B is backed up while B and A keep writing, and writes go on after the
// backup. B is killed, the old backup is restored into a fresh dir and
// started on B's address. It takes a new identity, so nothing it writes
// collides with what its old origin wrote after the backup: the mesh
// converges with every acknowledged op on every node and no quarantined
// item anywhere. A backup of a running node's dir is refused; of the
// stopped one it works.
func TestBackup_OldBackupRestoredJoinsWithoutConflict(t *testing.T) {
	lsnodeBin(t)
	m := newBKMesh(t, 3)
	a, b, c := m.nodes[0], m.nodes[1], m.nodes[2]
	ids := append(rpMustAppend(t, a, "a", 20), rpMustAppend(t, b, "b", 20)...)
	ids = append(ids, rpMustAppend(t, c, "c", 20)...)
	oldB := rpReplicaID(t, b)

	wa, wb := startWriter(a, "a-load"), startWriter(b, "b-load")
	file := filepath.Join(t.TempDir(), "b.lsbackup")
	if code, out, errOut := b.CLI("backup", "--out", file); code != 0 {
		t.Fatalf("backup: exit %d\n%s%s", code, out, errOut)
	}
	wa.waitMore(t, 20) // writes go on after the backup
	wb.waitMore(t, 20)
	ids = append(append(ids, wa.Stop(t)...), wb.Stop(t)...)
	after := rpMustAppend(t, b, "b-after", 10) // the backup lacks these
	ids = append(ids, after...)
	rpConverged(t, rpConvergeLimit, ids, m.nodes...)

	code, _, errOut := runCLI(t, nil, "backup", "--data", b.opts.DataDir, "--out", filepath.Join(t.TempDir(), "x"))
	if code != 1 || !strings.Contains(errOut, "in use by pid") {
		t.Fatalf("backup of a running node's dir: exit %d %s", code, errOut)
	}
	b.Kill()
	if code, out, errOut := runCLI(t, nil, "backup", "--data", b.opts.DataDir, "--out", filepath.Join(t.TempDir(), "stopped")); code != 0 ||
		!strings.Contains(out, oldB) {
		t.Fatalf("backup of the stopped dir: exit %d\n%s%s", code, out, errOut)
	}
	ids = append(ids, rpMustAppend(t, a, "a-while-down", 10)...)

	dir := t.TempDir()
	if code, _, errOut := runCLI(t, nil, "restore", file, "--data", b.opts.DataDir); code != 1 || !strings.Contains(errOut, "not empty") {
		t.Fatalf("restore into a non-empty dir: exit %d %s", code, errOut)
	}
	fresh := filepath.Join(dir, "fresh")
	code, out, errOut := runCLI(t, nil, "restore", file, "--data", fresh)
	if code != 0 || !strings.Contains(out, "(new; the backup's "+oldB) {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errOut)
	}
	b2 := m.start(1, fresh)
	newB := rpReplicaID(t, b2)
	if newB == oldB {
		t.Fatalf("the restored node kept the replica id %s", oldB)
	}
	ids = append(ids, rpMustAppend(t, b2, "b-restored", 10)...)
	live := []*lsnodeProc{a, b2, c}
	rpConverged(t, rpConvergeLimit, ids, live...)
	vv, _ := rpVector(a)
	if vv[newB] != 10 {
		t.Fatalf("vector %v: want the restored node's 10 ops under %s", vv, newB)
	}
	bkNoQuarantine(t, live...)
	t.Logf("restored an old backup of %s as %s: %d acknowledged ops on every node, no quarantined item", oldB, newB, len(ids))
}

// TestBackup_RestoredNodeRelaysItsOldOriginSigned: A writes and is
// backed up, then A is gone. Its backup is restored under a new identity
// (the key is dropped) and started as R, the only holder of A's ops. A
// node that refuses unsigned origins, peering only R, takes every one of
// A's ops: the backup carries their signatures, and R announces A's key
// with them. Then a second backup of R, taken by R, seeds a node that
// refuses unsigned origins too: it takes R's own ops and A's.
func TestBackup_RestoredNodeRelaysItsOldOriginSigned(t *testing.T) {
	lsnodeBin(t)
	a := startLsnode(t, nodeOptions{Args: []string{"--cluster-id", rpCluster, "--name", "a", "--grpc", fmt.Sprintf("127.0.0.1:%d", freePort(t))}})
	ids := rpMustAppend(t, a, "a", 12)
	oldA := rpReplicaID(t, a)
	file := filepath.Join(t.TempDir(), "a.lsbackup")
	if code, out, errOut := a.CLI("backup", "--out", file); code != 0 {
		t.Fatalf("backup: exit %d\n%s%s", code, out, errOut)
	}
	a.Kill()

	restored := filepath.Join(t.TempDir(), "r")
	if code, out, errOut := runCLI(t, nil, "restore", file, "--data", restored); code != 0 {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errOut)
	}
	grpcR := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	r := startLsnode(t, nodeOptions{DataDir: restored, Args: []string{"--cluster-id", rpCluster, "--name", "r", "--grpc", grpcR}})
	ids = append(ids, rpMustAppend(t, r, "r", 5)...)
	j := startLsnode(t, nodeOptions{Args: []string{"--cluster-id", rpCluster, "--name", "j", "--grpc", fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		"--peer", grpcR, "--unsigned-origins", "refuse"}})
	rpConverged(t, rpConvergeLimit, ids, r, j)
	if vv, _ := rpVector(j); vv[oldA] != 12 {
		t.Fatalf("vector %v: want all 12 of %s's ops", vv, oldA)
	}

	seeded := filepath.Join(t.TempDir(), "s")
	if code, out, errOut := runCLI(t, nil, "restore", "--from", r.URL, "--data", seeded); code != 0 {
		t.Fatalf("restore --from: exit %d\n%s%s", code, out, errOut)
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	grpcS := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s := startLsnode(t, nodeOptions{DataDir: seeded, Args: []string{"--cluster-id", rpCluster, "--name", "s", "--grpc", grpcS}})
	k := startLsnode(t, nodeOptions{Args: []string{"--cluster-id", rpCluster, "--name", "k", "--grpc", fmt.Sprintf("127.0.0.1:%d", freePort(t)),
		"--peer", grpcS, "--unsigned-origins", "refuse"}})
	rpConverged(t, rpConvergeLimit, ids, s, k)
	bkNoQuarantine(t, j, s, k)
}

// TestBackup_KeepIdentityWaitsForItsOrigin: B is restored from an old
// backup under its own identity. With no peer to pull its origin back
// from, it refuses every local write; with its peer, it pulls the ops its
// origin wrote after the backup, then numbers its next write after them,
// and nothing conflicts.
func TestBackup_KeepIdentityWaitsForItsOrigin(t *testing.T) {
	lsnodeBin(t)
	m := newBKMesh(t, 2)
	a, b := m.nodes[0], m.nodes[1]
	ids := rpMustAppend(t, b, "b", 10)
	file := filepath.Join(t.TempDir(), "b.lsbackup")
	if code, out, errOut := b.CLI("backup", "--out", file); code != 0 {
		t.Fatalf("backup: exit %d\n%s%s", code, out, errOut)
	}
	ids = append(ids, rpMustAppend(t, b, "b", 10)...)
	rpConverged(t, rpConvergeLimit, ids, a, b)
	oldB := rpReplicaID(t, b)
	b.Kill()

	dir := filepath.Join(t.TempDir(), "kept")
	code, out, errOut := runCLI(t, nil, "restore", file, "--data", dir, "--keep-identity")
	if code != 0 || !strings.Contains(out, oldB+" (kept") {
		t.Fatalf("restore --keep-identity: exit %d\n%s%s", code, out, errOut)
	}
	alone := startLsnode(t, nodeOptions{DataDir: dir})
	if s := bkStatusOf(t, alone); s.ReplicaID != oldB || !s.Recovering {
		t.Fatalf("restored node: %+v", s)
	}
	// A refusal is a result with isError, which rpTool reports as an error
	// carrying the result's text.
	var accepted struct{ Success bool }
	err := rpTool(alone, "mempalace_event_append", map[string]any{"type": "note", "stream": "e2e", "room": "replication",
		"from_agent": "b", "body": "too early"}, &accepted)
	if err == nil || !strings.Contains(err.Error(), "refuses writes until it has pulled") {
		t.Fatalf("append while recovering: %v %+v, want the recovery refusal", err, accepted)
	}
	if err := alone.Stop(); err != nil {
		t.Fatal(err)
	}

	b2 := m.start(1, dir)
	testwait.Until(t, rpConvergeLimit, "the restored node to recover its origin", func() bool {
		var s bkStatus
		return rpDo(b2, "GET", "/statusz", nil, &s) == nil && !s.Recovering
	})
	id, err := rpAppend(b2, "b", "after recovery")
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, id)
	rpConverged(t, rpConvergeLimit, ids, a, b2)
	if vv, _ := rpVector(a); vv[oldB] != 21 {
		t.Fatalf("vector %v: want %s's write after recovery numbered 21", vv, oldB)
	}
	bkNoQuarantine(t, a, b2)
}

// TestBackup_JoinFromSnapshot: a node of a mesh with a 100,000-event log
// seeds a new node from its snapshot (restore --from), which then catches
// up by anti-entropy with what was written after the snapshot: it applies
// those ops only, not the log.
func TestBackup_JoinFromSnapshot(t *testing.T) {
	lsnodeBin(t)
	const n = 100_000
	srcDir := t.TempDir()
	fillSourceLog(t, srcDir, n, false)
	grpcSrc := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	src := startLsnode(t, nodeOptions{DataDir: srcDir, Args: []string{"--cluster-id", rpCluster, "--name", "src", "--grpc", grpcSrc}})
	ids := rpMustAppend(t, src, "before", 5)

	dir := filepath.Join(t.TempDir(), "joined")
	start := time.Now()
	code, out, errOut := runCLI(t, nil, "restore", "--from", src.URL, "--data", dir)
	if code != 0 {
		t.Fatalf("restore --from: exit %d\n%s%s", code, out, errOut)
	}
	seeded := time.Since(start)
	ids = append(ids, rpMustAppend(t, src, "after", 20)...)
	dst := startLsnode(t, nodeOptions{DataDir: dir, Args: []string{"--cluster-id", rpCluster, "--name", "dst",
		"--grpc", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--peer", grpcSrc}})
	srcID := rpReplicaID(t, src)
	testwait.Until(t, rpConvergeLimit, "the joined node to catch up", func() bool {
		vd, err := rpVector(dst)
		return err == nil && vd[benchOrigin] == n && vd[srcID] == 25
	})
	t.Logf("joined a %d-event mesh from a snapshot in %v, caught up in %v", n, seeded.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	rpConverged(t, rpConvergeLimit, ids, src, dst)
	if rpReplicaID(t, dst) == srcID {
		t.Fatal("the joined node took its seed's identity")
	}
	if applied := metricOrZero(scrapeMetrics(t, dst), `lsnode_store_remote_ops_total{outcome="applied"}`); applied != 20 {
		t.Fatalf("the joined node applied %v remote ops; want the 20 written after its snapshot", applied)
	}
	bkNoQuarantine(t, src, dst)
}

// TestEvents_ExportLoadsInPython: `events export` writes JSON Lines that
// Python's json module reads line by line, every event once, and resumes
// from the cursor it prints with only what came after.
func TestEvents_ExportLoadsInPython(t *testing.T) {
	lsnodeBin(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	p := startLsnode(t, nodeOptions{})
	for i := range 1200 {
		if _, err := rpAppend(p, "exporter", fmt.Sprintf("line %d: \"quoted\", ünïcode, tab\t, newline\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := p.CLI("events", "export", "--stream", "e2e")
	if code != 0 {
		t.Fatalf("export: exit %d %s", code, errOut)
	}
	if got := pythonLines(t, python, out); got != 1200 {
		t.Fatalf("python read %d events, want 1200", got)
	}
	_, cursor, ok := strings.Cut(strings.TrimSpace(errOut), "resume with --cursor ")
	if !ok {
		t.Fatalf("export printed no cursor: %q", errOut)
	}
	for i := range 3 {
		if _, err := rpAppend(p, "exporter", fmt.Sprintf("later %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut = p.CLI("events", "export", "--stream", "e2e", "--cursor", cursor)
	if code != 0 {
		t.Fatalf("resumed export: exit %d %s", code, errOut)
	}
	var bodies []string
	for line := range strings.Lines(out) {
		var ev struct{ Body string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, ev.Body)
	}
	if strings.Join(bodies, ",") != "later 0,later 1,later 2" {
		t.Fatalf("resumed export: %q", bodies)
	}
}

// pythonLines feeds JSON Lines to python3's json.loads and returns how
// many lines it read.
func pythonLines(t *testing.T, python, lines string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", "import json,sys; evs = [json.loads(l) for l in sys.stdin]; assert all('id' in e for e in evs); print(len(evs))")
	cmd.Stdin = strings.NewReader(lines)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python3 could not load the export: %v\n%s", err, stderr.String())
	}
	var n int
	fmt.Sscan(stdout.String(), &n)
	return n
}
