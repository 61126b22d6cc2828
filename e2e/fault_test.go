//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// faultScenario sizes one fault run.
type faultScenario struct {
	Name           string
	Nodes          int
	Subnet         int           // 10.213.<Subnet>.0/24; distinct per test
	Faults         time.Duration // length of the fault phase (the load runs through it)
	Pace           time.Duration // mean pause between one client's appends
	CLIClients     int
	TmpfsSize      string
	ConvergeWithin time.Duration
}

// TestFaultBounded is the bounded fault run of `make test`: three
// nodes, 60 s of seeded faults of every kind under concurrent load,
// then the checker. LSNODE_FAULT_SEED replays a schedule.
func TestFaultBounded(t *testing.T) {
	runFaultScenario(t, faultScenario{
		Name: "bounded", Nodes: 3, Subnet: 211, Faults: 60 * time.Second, Pace: 40 * time.Millisecond,
		CLIClients: 1, TmpfsSize: "256m", ConvergeWithin: 90 * time.Second,
	})
}

// TestFaultSoak is the long run behind `make soak DURATION=30m`; it runs
// only when LSNODE_SOAK_DURATION is set.
func TestFaultSoak(t *testing.T) {
	v := os.Getenv("LSNODE_SOAK_DURATION")
	if v == "" {
		t.Skip("soak: set LSNODE_SOAK_DURATION (make soak DURATION=30m)")
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("LSNODE_SOAK_DURATION=%q: want a positive Go duration", v)
	}
	runFaultScenario(t, faultScenario{
		Name: "soak", Nodes: 3, Subnet: 212, Faults: d, Pace: 40 * time.Millisecond,
		CLIClients: 1, TmpfsSize: "4g", ConvergeWithin: 5 * time.Minute,
	})
}

// faultSeed is LSNODE_FAULT_SEED or a fresh one.
func faultSeed(t *testing.T) int64 {
	if v := os.Getenv("LSNODE_FAULT_SEED"); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("LSNODE_FAULT_SEED=%q: %v", v, err)
		}
		return s
	}
	return time.Now().UnixNano() % 1_000_000_000
}

// runFaultScenario starts the cluster, runs the load through the seeded
// schedule, heals, waits for convergence and checks.
func runFaultScenario(t *testing.T, sc faultScenario) {
	lsnodeBin(t)
	seed := faultSeed(t)
	banner := fmt.Sprintf("fault %s run: seed %d (replay: LSNODE_FAULT_SEED=%d)", sc.Name, seed, seed)
	fmt.Fprintln(os.Stderr, "*** "+banner+" ***")
	t.Log(banner)

	c := newFaultCluster(t, faultClusterConfig{Nodes: sc.Nodes, Subnet: sc.Subnet, TmpfsSize: sc.TmpfsSize, Seed: seed})
	var kinds []faultKind
	for _, k := range allFaultKinds {
		if _, skip := c.skipKinds[k]; !skip {
			kinds = append(kinds, k)
		}
	}
	steps := faultSchedule(seed, sc.Nodes, sc.Faults, kinds, c.diskNode)
	plan := faultScheduleText(seed, steps)
	t.Log(plan)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("FAILED fault run, seed %d; its schedule was:\n%s", seed, plan)
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	g := newLoadGen(c, seed, sc.Pace)
	g.token = c.token
	t.Cleanup(func() { cancel(); g.halt(); g.wait() }) // before the nodes stop
	loadStart := time.Now()
	g.start(ctx, sc.CLIClients)

	run := c.runSchedule(steps, sc.Faults)
	c.release()
	cancel()
	loadStop := time.Now()
	g.setDeadline(loadStop.Add(45 * time.Second))
	g.wait()
	t.Logf("load stopped after %v; keyed retries done %v later", loadStop.Sub(loadStart).Round(time.Millisecond),
		time.Since(loadStop).Round(time.Millisecond))

	var targets []checkTarget
	for _, n := range c.nodes {
		targets = append(targets, checkTarget{Name: n.name, URL: n.URL(), Token: c.token, CLI: cliRunner(c.bin, n.URL(), c.token)})
	}
	took, diff := waitConverged(targets, sc.ConvergeWithin)
	converged := time.Now()
	if diff != "" {
		t.Errorf("not converged within %v of the checker's start: %s", sc.ConvergeWithin, diff)
	}
	_ = took
	rep := checkCluster(targets, g.snapshot(), sc.ConvergeWithin)
	findings := c.findings.all()

	t.Log(faultSummary(sc, seed, run, rep, findings, g.snapshot(), loadStart, loadStop, converged))
	for _, f := range findings {
		t.Errorf("finding: %s", f)
	}
	for _, p := range rep.Problems {
		t.Errorf("check: %s", p)
	}
}

// faultSummary renders the run's figures.
func faultSummary(sc faultScenario, seed int64, run faultRun, rep *checkReport, findings []string,
	records []*appendRecord, loadStart, loadStop, converged time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fault %s summary (seed %d, %d nodes):\n", sc.Name, seed, sc.Nodes)
	var total int
	var kinds []string
	for _, k := range allFaultKinds {
		total += run.ByKind[k]
		kinds = append(kinds, fmt.Sprintf("%s %d", k, run.ByKind[k]))
	}
	fmt.Fprintf(&b, "  faults injected: %d (%s)\n", total, strings.Join(kinds, ", "))
	byKind := map[clientKind][3]int{}
	refusedNodes := map[int]int{}
	for _, r := range records {
		v := byKind[r.Kind]
		v[r.Outcome]++
		byKind[r.Kind] = v
		if r.Outcome == outFailed {
			refusedNodes[r.Node]++
		}
	}
	for _, k := range []clientKind{clientPlain, clientIdem, clientCLI} {
		v := byKind[k]
		fmt.Fprintf(&b, "  %-8s clients: %d acked, %d refused, %d unknown\n", k, v[outAcked], v[outFailed], v[outUnknown])
	}
	secs := loadStop.Sub(loadStart).Seconds()
	fmt.Fprintf(&b, "  appends acknowledged: %d in %.0f s (%.1f/s held through the faults); refused %d (by node %v); unknown %d (%d of them found committed)\n",
		rep.Acked, secs, float64(rep.Acked)/secs, rep.Failed, refusedNodes, rep.Unknown, rep.UnknownStored)
	fmt.Fprintf(&b, "  keyed requests retried: %d; attempts answered duplicate:true: %d\n", rep.Retried, rep.DupAnswers)
	fmt.Fprintf(&b, "  events on every node: %d from %d origins; owed sets compared: %d\n", rep.Events, rep.Origins, rep.OwedSets)
	fmt.Fprintf(&b, "  views compared: %d (awaiting asks claimed: %d, in claim conflict: %d; wait-for cycles: %d)\n",
		rep.Views, rep.Claimed, rep.Conflicts, rep.Cycles)
	fmt.Fprintf(&b, "  lost %d, duplicated %d, problems %d, findings %d\n", rep.Lost, rep.Dup, len(rep.Problems), len(findings))
	if !run.LastHeal.IsZero() {
		fmt.Fprintf(&b, "  converged %.1f s after the last heal (%.1f s after the load stopped)\n",
			converged.Sub(run.LastHeal).Seconds(), converged.Sub(loadStop).Seconds())
	}
	for _, k := range allFaultKinds {
		if d := run.CatchUp[k]; len(d) > 0 {
			slices.Sort(d)
			fmt.Fprintf(&b, "  catch-up after %-9s heals: n=%d p50 %.2f s, p90 %.2f s, max %.2f s\n", k, len(d),
				d[len(d)/2].Seconds(), d[len(d)*9/10].Seconds(), d[len(d)-1].Seconds())
		}
	}
	for _, line := range topReasons("refusals", records, func(r *appendRecord) []string { return r.Refusals }) {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	for _, line := range topReasons("unknowns", records, func(r *appendRecord) []string { return r.Unknowns }) {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	for _, n := range run.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	return b.String()
}

// topReasons counts the answers of the given kind by their first words
// (ids and numbers vary) and renders the five most frequent.
func topReasons(what string, records []*appendRecord, of func(*appendRecord) []string) []string {
	count := map[string]int{}
	for _, r := range records {
		for _, d := range of(r) {
			if len(d) > 130 {
				d = d[:130]
			}
			count[d]++
		}
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return count[keys[i]] > count[keys[j]] || count[keys[i]] == count[keys[j]] && keys[i] < keys[j]
	})
	var out []string
	for i, k := range keys {
		if i == 5 {
			break
		}
		out = append(out, fmt.Sprintf("%s: %dx %q", what, count[k], k))
	}
	return out
}
