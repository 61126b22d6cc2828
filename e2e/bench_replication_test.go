//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/store"
)

// The replication benchmarks, on real `lsnode serve` processes.
// They take minutes and report figures rather than assert timings, so
// they run only with LSNODE_BENCH_REPLICATION=1 (`make bench-replication`);
// `make e2e` skips them. Figures go to docs/benchmarks.md#replication.

// requireBench skips unless the replication benchmarks were asked for.
func requireBench(t *testing.T) {
	t.Helper()
	lsnodeBin(t)
	if os.Getenv("LSNODE_BENCH_REPLICATION") == "" {
		t.Skip("replication benchmark: set LSNODE_BENCH_REPLICATION=1 (make bench-replication)")
	}
}

// benchOrigin is the origin of the synthetic catch-up log: a third
// party that does not sign, so neither node signs or verifies; with
// LSNODE_BENCH_SIGNED=1 the log is the source's own, which it signs as it
// serves it and the receiver verifies.
const benchOrigin = "rep_00000000be0c"

// TestBenchReplication_CatchUp: an empty node catches up a log of
// LSNODE_BENCH_EVENTS (default 1,000,000) events served by another node.
// The source log is written straight into the source's data dir with the
// store's ApplyBatch (timed: the store's batched apply rate in this
// process); LSNODE_BENCH_RAW_ROWS_PER_S is the raw batched SQLite insert
// rate store's BenchmarkRawInsert measured just before (make
// bench-replication passes it). LSNODE_BENCH_RECEIVER_ENV and _ARGS tune
// the receiver (memory limit, read cache). Reported: catch-up time and rate, both
// ratios, the receiver's peak RSS (VmHWM) and the share of the catch-up
// the receiver spent committing write batches.
func TestBenchReplication_CatchUp(t *testing.T) {
	requireBench(t)
	n := int(envFloat("LSNODE_BENCH_EVENTS", 1_000_000))
	srcDir := t.TempDir()
	applyRate, origin := fillSourceLog(t, srcDir, n, os.Getenv("LSNODE_BENCH_SIGNED") != "")
	t.Logf("source log: %d events of %s written by ApplyBatch at %.0f events/s; load average %s", n, origin, applyRate, loadAverage())

	grpcSrc := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	src := startLsnode(t, nodeOptions{DataDir: srcDir, Args: []string{"--cluster-id", rpCluster, "--name", "src", "--grpc", grpcSrc}})
	srcBefore := readProc(src)
	start := time.Now()
	// LSNODE_BENCH_RECEIVER_ENV and _ARGS (space-separated) tune the
	// receiver, e.g. GOMEMLIMIT=160MiB and --read-cache-mb 16.
	dstEnv, dstArgs := strings.Fields(os.Getenv("LSNODE_BENCH_RECEIVER_ENV")), strings.Fields(os.Getenv("LSNODE_BENCH_RECEIVER_ARGS"))
	if len(dstEnv)+len(dstArgs) > 0 {
		t.Logf("receiver environment %q, extra flags %q", dstEnv, dstArgs)
	}
	dst := startLsnode(t, nodeOptions{Env: dstEnv, Args: append([]string{"--cluster-id", rpCluster, "--name", "dst",
		"--grpc", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--peer", grpcSrc}, dstArgs...)})
	// LSNODE_BENCH_PROFILE_DIR: CPU profiles of the source (node0) and the
	// receiver (node1) for LSNODE_BENCH_PROFILE_SECONDS (default 10) from
	// 2 s into the catch-up.
	profiled := profileNodes(t, os.Getenv("LSNODE_BENCH_PROFILE_DIR"), []*lsnodeProc{src, dst}, 2*time.Second,
		time.Duration(envFloat("LSNODE_BENCH_PROFILE_SECONDS", 10))*time.Second)
	var statusShown bool
	var held int64
	for {
		vv, err := rpVector(dst)
		if err == nil {
			held = vv[origin]
		}
		if held >= int64(n) {
			break
		}
		if !statusShown && held > int64(n)/4 {
			_, out, _ := dst.CLI("status")
			t.Logf("`lsnode status` on the receiver at %d of %d:\n%s", held, n, out)
			statusShown = strings.Contains(out, "CATCHING UP")
		}
		if time.Since(start) > 30*time.Minute {
			t.Fatalf("catch-up not done after 30 min: %d of %d", held, n)
		}
		time.Sleep(500 * time.Millisecond)
	}
	took := time.Since(start)
	rate := float64(n) / took.Seconds()
	ps, srcPs := readProc(dst), readProc(src)
	profiled()
	metrics := scrapeMetrics(t, dst)
	commit := metricValue(metrics, "lsnode_store_commit_duration_seconds_sum")
	batches := metricValue(metrics, "lsnode_store_commit_duration_seconds_count")
	t.Logf("catch-up of %d events: %v, %.0f events/s = %.0f%% of the in-process ApplyBatch rate; receiver VmHWM %s (target ≤ 256 MiB), CPU %v; store commits %.0f batches, %.1f s = %.0f%% of the catch-up; load average %s",
		n, took.Round(time.Millisecond), rate, 100*rate/applyRate, mib(ps.HWM), ps.CPU.Round(time.Millisecond),
		batches, commit, 100*commit/took.Seconds(), loadAverage())
	t.Logf("source CPU during the catch-up %v; receiver + source CPU per event %.1f µs",
		(srcPs.CPU - srcBefore.CPU).Round(time.Millisecond), float64((ps.CPU+srcPs.CPU-srcBefore.CPU).Microseconds())/float64(n))
	t.Logf("receiver memory at the end: VmRSS %s; Go runtime: heap obtained from the OS %s, heap in use %s, all runtime memory %s (the rest of the RSS is SQLite's, allocated outside the Go heap)",
		mib(ps.RSS), mib(int64(metricValue(metrics, "go_memstats_heap_sys_bytes"))),
		mib(int64(metricValue(metrics, "go_memstats_heap_inuse_bytes"))), mib(int64(metricValue(metrics, "go_memstats_sys_bytes"))))
	if raw := envFloat("LSNODE_BENCH_RAW_ROWS_PER_S", 0); raw > 0 {
		t.Logf("raw batched SQLite insert rate (BenchmarkRawInsert, just before): %.0f rows/s; catch-up = %.0f%% of it (target ≥ 80%%)", raw, 100*rate/raw)
	}
	if !statusShown {
		t.Errorf("`lsnode status` showed no CATCHING UP section while the receiver was catching up")
	}
	if !strings.Contains(dst.Logs(), "catching up with origin") {
		t.Errorf("the receiver logged no catch-up progress")
	}
	t.Logf("receiver's integrity check: %.0f ops verified, %.0f unsigned accepted; source: %.0f own ops signed",
		metricOrZero(metrics, `lsnode_sync_op_integrity_total{result="verified"}`),
		metricOrZero(metrics, `lsnode_sync_op_integrity_total{result="unsigned_accepted"}`), metricOrZero(scrapeMetrics(t, src), "lsnode_sync_ops_signed_total"))
	logProgressLines(t, dst.Logs())
}

// logProgressLines logs the receiver's progress lines.
func logProgressLines(t *testing.T, logs string) {
	var lines []string
	for line := range strings.Lines(logs) {
		if strings.Contains(line, "catching up with origin") || strings.Contains(line, "caught up with origin") {
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	t.Logf("receiver progress log (%d lines):\n%s", len(lines), strings.Join(lines, "\n"))
}

// fillSourceLog writes n events of benchOrigin (own: of the store's own
// replica) into a store in dir with ApplyBatch, 2,000 per batch, and
// returns the rate and the origin.
func fillSourceLog(t *testing.T, dir string, n int, own bool) (float64, string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	origin := benchOrigin
	if own {
		origin = st.ReplicaID()
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	base := time.Now().Add(-time.Hour)
	const per = 2000
	var elapsed time.Duration
	for first := 1; first <= n; first += per {
		var b store.Batch
		for seq := first; seq < first+per && seq <= n; seq++ {
			wall := base.Add(time.Duration(seq) * time.Millisecond)
			ts := hlc.Timestamp{WallMS: wall.UnixMilli(), Replica: origin}
			b.Ops = append(b.Ops, store.Op{Event: store.Event{
				ID: fmt.Sprintf("evt_%s_%012x", wall.UTC().Format("20060102T150405"), seq), OriginReplica: origin,
				OriginSeq: int64(seq), HLC: ts.String(), Type: "note", Stream: "bench", Room: "catch-up",
				FromAgent: fmt.Sprintf("agent-%d", seq%16), ToAgent: "*", Status: "open",
				Body:      fmt.Sprintf("catch-up event %d: %080d", seq, seq),
				CreatedAt: wall.UTC().Format("2006-01-02T15:04:05Z"), Metadata: json.RawMessage("{}"),
			}, PrevSeq: int64(seq - 1)})
		}
		start := time.Now()
		res, err := st.ApplyBatch(ctx, b)
		elapsed += time.Since(start)
		if err != nil || res.Applied != len(b.Ops) {
			t.Fatalf("fill source log at %d: %+v %v", first, res, err)
		}
	}
	return float64(n) / elapsed.Seconds(), origin
}

// TestBenchReplication_Delay: 3 nodes, each a static peer of the others,
// LSNODE_BENCH_RATE appends/s on each (default 500) for
// LSNODE_BENCH_SECONDS (default 30). The delay of an event to a peer is
// from the origin's answer to the append until the peer's SSE stream
// delivers it; reported with the nodes' own apply-delay histograms.
// LSNODE_BENCH_PROFILE_DIR, when set, receives a CPU profile per node.
func TestBenchReplication_Delay(t *testing.T) {
	requireBench(t)
	rate, secs := envFloat("LSNODE_BENCH_RATE", 500), envFloat("LSNODE_BENCH_SECONDS", 30)
	nodes, _ := rpMesh(t, []string{rpCluster, rpCluster, rpCluster}, [][]int{{1, 2}, {0, 2}, {0, 1}})
	measureDelays(t, nodes, rate*float64(len(nodes)), secs, int(envFloat("LSNODE_BENCH_WORKERS", 48)))
}

// measureDelays runs the load over nodes and reports per-peer and
// visible-on-all delays, the exported apply-delay quantiles and the
// nodes' CPU and memory; it returns the visible-on-all p99.
func measureDelays(t *testing.T, nodes []*lsnodeProc, rate, secs float64, workers int) time.Duration {
	t.Helper()
	epoch := time.Now()
	watchers := make([]*sseWatch, len(nodes))
	for i, p := range nodes {
		watchers[i] = watchSSE(t, p, epoch)
	}
	warm := rpMustAppend(t, nodes[0], "warm-up", 3)
	waitSeen(t, rpConvergeLimit, warm, watchers...)
	before := make([]histogram, len(nodes))
	commitsBefore := make([]histogram, len(nodes))
	cpu := make([]procStat, len(nodes))
	gcs := make([]float64, len(nodes)) // Go GC cycles
	for i, p := range nodes {
		gcs[i] = metricOrZero(scrapeMetrics(t, p), "go_gc_duration_seconds_count")
		before[i] = scrapeHistogram(t, p, "lsnode_store_apply_delay_seconds")
		commitsBefore[i] = scrapeHistogram(t, p, "lsnode_store_commit_duration_seconds")
		cpu[i] = readProc(p)
	}
	genBefore := selfCPU()
	loadStart := time.Now()
	// LSNODE_BENCH_PROFILE_DIR: CPU profiles of the nodes over the middle
	// of the load (from 2 s in until 2 s before the end).
	profiled := profileNodes(t, os.Getenv("LSNODE_BENCH_PROFILE_DIR"), nodes, 2*time.Second, time.Duration(secs-4)*time.Second)
	load := runLoad(context.Background(), epoch, nodes, rate, time.Duration(secs*float64(time.Second)), workers)
	if len(load.errs) > 0 {
		t.Errorf("%d appends failed, e.g. %s", len(load.errs), load.errs[0])
	}
	ids := make([]string, len(load.acked))
	for i, a := range load.acked {
		ids[i] = a.ID
	}
	waitSeen(t, 5*time.Minute, ids, watchers...)
	window := time.Since(loadStart)
	profiled()
	var toPeer, toAll []time.Duration
	for _, a := range load.acked {
		var last time.Duration
		for j, w := range watchers {
			if j == a.Node {
				continue
			}
			at, _ := w.At(a.ID)
			toPeer = append(toPeer, at-a.Ack)
			last = max(last, at-a.Ack)
		}
		toAll = append(toAll, last)
	}
	hist := mergedDelta(t, nodes, "lsnode_store_apply_delay_seconds", before)
	commits := mergedDelta(t, nodes, "lsnode_store_commit_duration_seconds", commitsBefore)
	r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	t.Logf("%d nodes, %d appends at %.0f/s achieved (asked %.0f/s, %d workers, %d started >100 ms late) over %v",
		len(nodes), len(load.acked), load.Rate(), rate, workers, load.late, r(window))
	t.Logf("origin answer -> peer SSE delivery, %d (event, peer) pairs: p50 %v p99 %v max %v",
		len(toPeer), r(quantile(toPeer, 0.5)), r(quantile(toPeer, 0.99)), r(quantile(toPeer, 1)))
	t.Logf("origin answer -> visible on every peer, %d events: p50 %v p99 %v max %v",
		len(toAll), r(quantile(toAll, 0.5)), r(quantile(toAll, 0.99)), r(quantile(toAll, 1)))
	t.Logf("exported lsnode_store_apply_delay_seconds (origin HLC -> peer commit), %.0f ops: p50 %v p99 %v",
		hist.Total(), r(hist.Quantile(0.5)), r(hist.Quantile(0.99)))
	t.Logf("store write transactions (appends and applies) on all nodes, %.0f: p50 %v p99 %v",
		commits.Total(), r(commits.Quantile(0.5)), r(commits.Quantile(0.99)))
	var push, pull, dup, dropped float64
	for _, p := range nodes {
		m := scrapeMetrics(t, p)
		push += metricOrZero(m, `lsnode_sync_ops_total{path="push",result="applied"}`)
		pull += metricOrZero(m, `lsnode_sync_ops_total{path="pull",result="applied"}`)
		dup += metricOrZero(m, `lsnode_sync_ops_total{path="push",result="duplicate"}`) +
			metricOrZero(m, `lsnode_sync_ops_total{path="pull",result="duplicate"}`)
		dropped += metricOrZero(m, "lsnode_sync_push_dropped_total")
	}
	t.Logf("ops applied on all nodes since start: %.0f by push, %.0f by pull; %.0f duplicates received; push drops %.0f", push, pull, dup, dropped)
	var rows []string
	var cpuSum time.Duration
	for i, p := range nodes {
		after := readProc(p)
		cpuSum += after.CPU - cpu[i].CPU
		gc := metricOrZero(scrapeMetrics(t, p), "go_gc_duration_seconds_count") - gcs[i]
		rows = append(rows, fmt.Sprintf("node %d: CPU %.0f%% of a core, RSS %s, peak %s, %.0f GC cycles", i,
			100*(after.CPU-cpu[i].CPU).Seconds()/window.Seconds(), mib(after.RSS), mib(after.HWM), gc))
	}
	t.Logf("per node over the load window (load average %s); all nodes' CPU per appended event %.0f µs; the test process (load and SSE readers) %.0f%% of a core:\n%s",
		loadAverage(), float64(cpuSum.Microseconds())/float64(max(len(load.acked), 1)),
		100*(selfCPU()-genBefore).Seconds()/window.Seconds(), strings.Join(rows, "\n"))
	return quantile(toAll, 0.99)
}

// mergedDelta is the sum over nodes of histogram name since before.
func mergedDelta(t *testing.T, nodes []*lsnodeProc, name string, before []histogram) histogram {
	t.Helper()
	var sum histogram
	for i, p := range nodes {
		h := scrapeHistogram(t, p, name).minus(before[i])
		if i == 0 {
			sum = h
			continue
		}
		for k := range sum.counts {
			sum.counts[k] += h.counts[k]
		}
	}
	return sum
}

// TestBenchReplication_Scale: LSNODE_BENCH_NODES (default 20) nodes on
// 127.0.0.1, node i dialling i+1 and i+5 (mod n): a connected graph where
// each node has about 4 sessions, not n-1. LSNODE_BENCH_RATE appends/s
// (default 50) cluster-wide, round-robin over the nodes, for
// LSNODE_BENCH_SECONDS (default 60); an event counts as visible when the
// last other node's SSE stream delivered it (target p99 ≤ 1 s).
func TestBenchReplication_Scale(t *testing.T) {
	requireBench(t)
	n := int(envFloat("LSNODE_BENCH_NODES", 20))
	peers := make([][]int, n)
	clusters := make([]string, n)
	for i := range n {
		clusters[i] = rpCluster
		peers[i] = []int{(i + 1) % n, (i + 5) % n}
	}
	nodes, _ := rpMesh(t, clusters, peers)
	testwait.Until(t, 2*time.Minute, "every node following its peers", func() bool {
		for _, p := range nodes {
			var out struct {
				Lsnode struct {
					Members []struct {
						Self   bool   `json:"self"`
						LagOps *int64 `json:"lag_ops"`
						State  string `json:"state"`
					} `json:"members"`
				} `json:"lsnode"`
			}
			if err := rpDo(p, "GET", "/sync/peers", nil, &out); err != nil {
				return false
			}
			synced := 0
			for _, m := range out.Lsnode.Members {
				if !m.Self && m.LagOps != nil {
					synced++
				}
			}
			if synced < 3 {
				return false
			}
		}
		return true
	})
	measureDelays(t, nodes, envFloat("LSNODE_BENCH_RATE", 50), envFloat("LSNODE_BENCH_SECONDS", 60), 16)
}

// TestBenchReplication_Partition: 5 nodes on test hosts in network
// namespaces (subnet 230), each a static peer of every other, cut 2|3 for
// LSNODE_BENCH_PARTITION (default 60s) while both sides take writes
// (20 appends/s on each side). Reported: the time from the heal until
// every node holds the same version vector (target ≤ 3 s).
func TestBenchReplication_Partition(t *testing.T) {
	requireBench(t)
	hold, err := time.ParseDuration(os.Getenv("LSNODE_BENCH_PARTITION"))
	if err != nil || hold <= 0 {
		hold = time.Minute
	}
	tn := newTestNet(t, 5, 230)
	const token = "bench-partition-token"
	grpc := make([]string, tn.Len())
	for i := range grpc {
		grpc[i] = net.JoinHostPort(tn.Addr(i), "7000")
	}
	nodes := make([]*lsnodeProc, tn.Len())
	for i := range nodes {
		args := []string{"--cluster-id", rpCluster, "--name", fmt.Sprintf("p%d", i), "--grpc", grpc[i]}
		for j := range grpc {
			if j != i {
				args = append(args, "--peer", grpc[j])
			}
		}
		nodes[i] = startLsnode(t, nodeOptions{Netns: tn.Netns(i), Host: tn.Addr(i), Port: 8765, Token: token, Args: args})
	}
	warm := append(rpMustAppend(t, nodes[0], "warm-a", 3), rpMustAppend(t, nodes[4], "warm-b", 3)...)
	rpConverged(t, rpConvergeLimit, warm, nodes...)

	tn.Partition([]int{0, 1}, []int{2, 3, 4})
	cut := time.Now()
	load := runLoad(context.Background(), cut, []*lsnodeProc{nodes[0], nodes[2], nodes[1], nodes[3]}, 40, hold, 8)
	if len(load.errs) > 0 {
		t.Fatalf("%d appends failed during the partition, e.g. %s", len(load.errs), load.errs[0])
	}
	sideA, sideB := vectorOf(t, nodes[0]), vectorOf(t, nodes[2])
	if maps.Equal(sideA, sideB) {
		t.Fatalf("both sides hold the same vector before the heal: the cut did not hold")
	}
	t.Logf("cut 2|3 for %v: %d appends on both sides at %.1f/s", time.Since(cut).Round(time.Millisecond), len(load.acked), load.Rate())

	tn.Heal()
	healed := time.Now()
	var vecs []map[string]int64
	for {
		vecs = vecs[:0]
		for _, p := range nodes {
			if vv, err := rpVector(p); err == nil {
				vecs = append(vecs, vv)
			}
		}
		if len(vecs) == len(nodes) && allEqual(vecs) && len(vecs[0]) >= 5 {
			break
		}
		if time.Since(healed) > 2*time.Minute {
			t.Fatalf("not converged 2 min after the heal: %v", vecs)
		}
		time.Sleep(25 * time.Millisecond)
	}
	converged := time.Since(healed)
	ids := make([]string, len(load.acked))
	for i, a := range load.acked {
		ids[i] = a.ID
	}
	rpConverged(t, rpConvergeLimit, append(warm, ids...), nodes...)
	t.Logf("after the heal every node holds the same vector in %v (target ≤ 3 s); every acknowledged id on every node; load average %s",
		converged.Round(time.Millisecond), loadAverage())
}

func vectorOf(t *testing.T, p *lsnodeProc) map[string]int64 {
	t.Helper()
	vv, err := rpVector(p)
	if err != nil {
		t.Fatal(err)
	}
	return vv
}

func allEqual(vecs []map[string]int64) bool {
	for _, v := range vecs[1:] {
		if !maps.Equal(v, vecs[0]) {
			return false
		}
	}
	return true
}
