//go:build e2e

package e2e

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestApplyDelayAccuracy (issue 7): under a steady append load on node A,
// the p99 of the apply-delay histogram B exports
// (lsnode_store_apply_delay_seconds, origin HLC to local commit),
// estimated from its buckets as PromQL's histogram_quantile does, agrees
// with the p99 measured from outside within ±10% or ±5 ms. Outside means
// the test's own monotonic clock: from A's answer to the append until B's
// SSE stream delivers the event. LSNODE_E2E_ACCURACY_RATE and
// _SECONDS change the load (default 40 appends/s for 20 s).
func TestApplyDelayAccuracy(t *testing.T) {
	lsnodeBin(t)
	rate, secs := envFloat("LSNODE_E2E_ACCURACY_RATE", 40), envFloat("LSNODE_E2E_ACCURACY_SECONDS", 20)
	nodes, _ := rpMesh(t, []string{rpCluster, rpCluster}, [][]int{{1}, {}})
	a, b := nodes[0], nodes[1]
	epoch := time.Now()
	watch := watchSSE(t, b, epoch)
	// Warm up: the session is up and following before the measured load.
	warm := rpMustAppend(t, a, "warm-up", 5)
	waitSeen(t, rpConvergeLimit, warm, watch)

	before := scrapeHistogram(t, b, "lsnode_store_apply_delay_seconds")
	load := runLoad(context.Background(), epoch, []*lsnodeProc{a}, rate, time.Duration(secs*float64(time.Second)), 8)
	if len(load.errs) > 0 {
		t.Fatalf("%d appends failed, e.g. %s", len(load.errs), load.errs[0])
	}
	ids := make([]string, len(load.acked))
	for i, ap := range load.acked {
		ids[i] = ap.ID
	}
	waitSeen(t, rpConvergeLimit, ids, watch)
	hist := scrapeHistogram(t, b, "lsnode_store_apply_delay_seconds").minus(before)
	if int(hist.Total()) != len(ids) {
		t.Fatalf("histogram observed %v ops during the load, %d were appended on A", hist.Total(), len(ids))
	}

	fromAck, fromSent := make([]time.Duration, len(ids)), make([]time.Duration, len(ids))
	for i, ap := range load.acked {
		seen, _ := watch.At(ap.ID)
		fromAck[i], fromSent[i] = seen-ap.Ack, seen-ap.Sent
	}
	external, exported := quantile(fromAck, 0.99), hist.Quantile(0.99)
	diff := (exported - external).Abs()
	tolerance := max(5*time.Millisecond, external/10)
	t.Logf("%d appends at %.1f/s on A (%d late); B: external p50 %v p99 %v (from the request: p99 %v); exported p50 %v p99 %v; |diff| %v, tolerance %v; load average %s",
		len(ids), load.Rate(), load.late, quantile(fromAck, 0.5).Round(10*time.Microsecond), external.Round(10*time.Microsecond),
		quantile(fromSent, 0.99).Round(10*time.Microsecond), hist.Quantile(0.5).Round(10*time.Microsecond),
		exported.Round(10*time.Microsecond), diff.Round(10*time.Microsecond), tolerance.Round(10*time.Microsecond), loadAverage())
	if diff > tolerance {
		t.Fatalf("exported p99 apply delay %v, externally measured %v: off by %v, more than ±5 ms or ±10%%", exported, external, diff)
	}
}

// envFloat is the float in environment variable name, or def.
func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil && v > 0 {
		return v
	}
	return def
}
