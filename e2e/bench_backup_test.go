//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// TestBenchBackup_JoinAndBackup (LSNODE_BENCH_REPLICATION=1, like the
// replication benchmarks): on a source node holding LSNODE_BENCH_EVENTS
// events (default 1,000,000), a new node joins by op replay (an empty
// node with the source as its peer) and, in the same run, from the
// source's snapshot (restore --from, then serve). Each path reports its
// time to hold the whole log, the bytes it received and its peak RSS.
// Then the source is backed up (lsnode backup --addr) while appends run
// at LSNODE_BENCH_PACE appends/s (default 100), against the same load
// without a backup just before: the backup's time and both p99s.
func TestBenchBackup_JoinAndBackup(t *testing.T) {
	requireBench(t)
	n := int(envFloat("LSNODE_BENCH_EVENTS", 1_000_000))
	srcDir := t.TempDir()
	fillSourceLog(t, srcDir, n, false)
	grpcSrc := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	src := startLsnode(t, nodeOptions{DataDir: srcDir, Args: []string{"--cluster-id", rpCluster, "--name", "src", "--grpc", grpcSrc}})
	t.Logf("source: %d events of %s; load average %s", n, benchOrigin, loadAverage())

	// Op replay.
	start := time.Now()
	replay := startLsnode(t, nodeOptions{Args: []string{"--cluster-id", rpCluster, "--name", "replay",
		"--grpc", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--peer", grpcSrc}})
	waitHolds(t, replay, n)
	replayTook := time.Since(start)
	replayPS, replayParts := readProc(replay), rssParts(replay)
	replayBytes := sumSeries(scrapeMetrics(t, replay), `lsnode_sync_frame_bytes_total{direction="received"`)
	if err := replay.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("op replay: %v to hold %d events, %s received in frames, peak RSS %s (now %s); load average %s",
		replayTook.Round(time.Millisecond), n, mib(int64(replayBytes)), mib(replayPS.HWM), replayParts, loadAverage())

	// Snapshot.
	dir := filepath.Join(t.TempDir(), "seeded")
	start = time.Now()
	restored, restoreRSS := restoreFromNode(t, src, dir)
	restoreTook := time.Since(start)
	seeded := startLsnode(t, nodeOptions{DataDir: dir, Args: []string{"--cluster-id", rpCluster, "--name", "seeded",
		"--grpc", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--peer", grpcSrc}})
	waitHolds(t, seeded, n)
	snapTook := time.Since(start)
	seededPS, seededParts := readProc(seeded), rssParts(seeded)
	syncBytes := sumSeries(scrapeMetrics(t, seeded), `lsnode_sync_frame_bytes_total{direction="received"`)
	t.Logf("snapshot: restore --from %v (%s read), then serve and hold every event: %v in all = %.1f %% of the replay's time; %s received in frames after; peak RSS restore %s, node %s (now %s); load average %s",
		restoreTook.Round(time.Millisecond), mib(restored), snapTook.Round(time.Millisecond), 100*snapTook.Seconds()/replayTook.Seconds(),
		mib(int64(syncBytes)), mib(restoreRSS), mib(seededPS.HWM), seededParts, loadAverage())
	if err := seeded.Stop(); err != nil {
		t.Fatal(err)
	}

	// A backup under a steady append load, against the same load alone.
	rate := envFloat("LSNODE_BENCH_PACE", 100)
	ctx := context.Background()
	epoch := time.Now()
	alone := runLoad(ctx, epoch, []*lsnodeProc{src}, rate, 10*time.Second, 16)
	p99Alone, _ := ackQuantile(alone, 0, time.Hour)
	file := filepath.Join(t.TempDir(), "src.lsbackup")
	var backupFrom, backupTo time.Duration
	done := make(chan error, 1)
	go func() {
		time.Sleep(2 * time.Second)
		backupFrom = time.Since(epoch)
		code, _, errOut := src.CLI("backup", "--out", file)
		backupTo = time.Since(epoch)
		if code != 0 {
			done <- fmt.Errorf("backup: exit %d %s", code, errOut)
			return
		}
		done <- nil
	}()
	during := runLoad(ctx, epoch, []*lsnodeProc{src}, rate, 40*time.Second, 16)
	loadEnd := time.Since(epoch)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if backupTo > loadEnd {
		t.Logf("the backup outlasted the load by %v: the appends of its last part are not counted", (backupTo - loadEnd).Round(time.Millisecond))
	}
	p99During, count := ackQuantile(during, backupFrom, backupTo)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("backup of %d events (%s): %v; appends at %.0f/s: p99 %v over the %d sent during the backup, against p99 %v without a backup just before (%d appends); errors %d+%d; load average %s",
		n, mib(fi.Size()), (backupTo - backupFrom).Round(time.Millisecond), rate, p99During, count, p99Alone, len(alone.acked),
		len(alone.errs), len(during.errs), loadAverage())
	if snap, ok := snapshotTook(src.Logs()); ok {
		p99Snap, nSnap := ackQuantile(during, backupFrom, backupFrom+snap)
		p99Stream, nStream := ackQuantile(during, backupFrom+snap, backupTo)
		t.Logf("of which the snapshot (page copy) %v: p99 %v over %d appends; streaming and hashing it to the client: p99 %v over %d appends",
			snap.Round(time.Millisecond), p99Snap, nSnap, p99Stream, nStream)
	}
}

// snapshotTook is the snapshot time the node logged for its backup.
func snapshotTook(logs string) (time.Duration, bool) {
	for line := range strings.Lines(logs) {
		if !strings.Contains(line, "backup snapshot taken") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "took="); ok {
				d, err := time.ParseDuration(v)
				return d, err == nil
			}
		}
	}
	return 0, false
}

// rssParts is the resident memory of p by kind (/proc/<pid>/status):
// anonymous (heaps) and file-backed (the mapped database).
func rssParts(p *lsnodeProc) string {
	p.mu.Lock()
	pid := p.cmd.Process.Pid
	p.mu.Unlock()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "unknown"
	}
	var parts []string
	for line := range strings.Lines(string(raw)) {
		if strings.HasPrefix(line, "RssAnon:") || strings.HasPrefix(line, "RssFile:") {
			parts = append(parts, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(parts, ", ")
}

// waitHolds polls until p holds n events of benchOrigin, every 200 ms:
// the wait is the figure its caller reports.
func waitHolds(t *testing.T, p *lsnodeProc, n int) {
	t.Helper()
	testwait.Until(t, 30*time.Minute, fmt.Sprintf("%s to hold %d events", p.URL, n), func() bool {
		vv, err := rpVector(p)
		return err == nil && vv[benchOrigin] >= int64(n)
	}, testwait.Every(200*time.Millisecond))
}

// restoreFromNode runs `lsnode restore --from` src into dir and returns
// the bytes it read and its peak RSS.
func restoreFromNode(t *testing.T, src *lsnodeProc, dir string) (int64, int64) {
	t.Helper()
	cmd := exec.Command(lsnodeBin(t), "restore", "--from", src.URL, "--data", dir, "--json")
	cmd.Env = cleanEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("restore --from: %v\n%s", err, out)
	}
	var rep struct {
		Bytes int64 `json:"bytes"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("restore --from: %v in %s", err, out)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // KiB on Linux
	}
	return rep.Bytes, rss
}

// ackQuantile is the p99 of the append latencies (answer minus send) of
// l's appends sent within [from, to), and how many there were.
func ackQuantile(l *benchLoad, from, to time.Duration) (time.Duration, int) {
	var lat []time.Duration
	for _, a := range l.acked {
		if a.Sent >= from && a.Sent < to {
			lat = append(lat, a.Ack-a.Sent)
		}
	}
	if len(lat) == 0 {
		return 0, 0
	}
	return quantile(lat, 0.99).Round(10 * time.Microsecond), len(lat)
}

// sumSeries adds up the samples of /metrics text whose series starts with
// prefix.
func sumSeries(body, prefix string) float64 {
	var sum float64
	for line := range strings.Lines(body) {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		fields := strings.Fields(line)
		if v, err := strconv.ParseFloat(fields[len(fields)-1], 64); err == nil {
			sum += v
		}
	}
	return sum
}
