package grpcpeer

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/store"
)

func stampedOp(origin string, seq int64, wall time.Time) store.Op {
	ts := hlc.Timestamp{WallMS: wall.UnixMilli(), Replica: origin}
	return store.Op{Event: store.Event{OriginReplica: origin, OriginSeq: seq, HLC: ts.String()}}
}

func TestOriginLag(t *testing.T) {
	reg := prometheus.NewRegistry()
	var logs bytes.Buffer
	lag := newOriginLag(newMetrics(reg), slog.New(slog.NewTextHandler(&logs, nil)), 5*time.Second)
	t0 := time.UnixMilli(1_800_000_000_000)
	gauge := func(name, origin string) float64 {
		t.Helper()
		v, ok := gatheredGauge(t, reg, "lsnode_sync_origin_lag_"+name, "origin", origin)
		if !ok {
			t.Fatalf("no lsnode_sync_origin_lag_%s{origin=%q}", name, origin)
		}
		return v
	}

	// A holds 10 ops of rep_b, the newest stamped at t0; a peer has 50.
	lag.committed([]store.Op{stampedOp("rep_b", 9, t0.Add(-time.Second)), stampedOp("rep_b", 10, t0)})
	lag.update(t0.Add(3*time.Second), "rep_a", map[string]int64{"rep_a": 7, "rep_b": 10},
		map[string]int64{"rep_a": 7, "rep_b": 50})
	if got := gauge("ops", "rep_b"); got != 40 {
		t.Errorf("lag ops = %v, want 40", got)
	}
	// The gap was seen at t0+3s, after the newest held op (t0): 0 s.
	if got := gauge("seconds", "rep_b"); got != 0 {
		t.Errorf("lag seconds right after the gap was seen = %v, want 0", got)
	}
	if strings.Contains(logs.String(), "catching up") {
		t.Errorf("a gap seen this instant was logged as a catch-up:\n%s", logs.String())
	}
	// Nothing arrives for 4 s: the copy is 4 s stale since the gap, and
	// the catch-up is logged.
	lag.update(t0.Add(7*time.Second), "rep_a", map[string]int64{"rep_b": 10}, map[string]int64{"rep_b": 50})
	if got := gauge("seconds", "rep_b"); got != 4 {
		t.Errorf("lag seconds 4 s after the gap = %v, want 4", got)
	}
	// Ops stamped t0+6s arrive: staleness is measured from them.
	lag.committed([]store.Op{stampedOp("rep_b", 30, t0.Add(6*time.Second))})
	lag.update(t0.Add(9*time.Second), "rep_a", map[string]int64{"rep_b": 30}, map[string]int64{"rep_b": 50})
	if got := gauge("seconds", "rep_b"); got != 3 {
		t.Errorf("lag seconds after newer ops = %v, want 3", got)
	}
	if got := gauge("ops", "rep_b"); got != 20 {
		t.Errorf("lag ops = %v, want 20", got)
	}
	rows := lag.rows()
	if len(rows) != 1 || rows[0].Origin != "rep_b" || rows[0].Held != 30 || rows[0].Target != 50 {
		t.Fatalf("rows = %+v", rows)
	}
	// The rate since the first line (t0+7s, 10 held): 20 ops in 2 s.
	if rows[0].Rate != 10 {
		t.Errorf("rate = %v, want 20/2", rows[0].Rate)
	}
	// t0+12s: 5 s after the first line, the second one, 30 ops in 5 s.
	lag.update(t0.Add(12*time.Second), "rep_a", map[string]int64{"rep_b": 40}, map[string]int64{"rep_b": 50})
	// Caught up: 0 and 0, and a closing line.
	lag.update(t0.Add(13*time.Second), "rep_a", map[string]int64{"rep_b": 50}, map[string]int64{"rep_b": 50})
	if gauge("ops", "rep_b") != 0 || gauge("seconds", "rep_b") != 0 {
		t.Errorf("caught up: ops %v seconds %v, want 0 0", gauge("ops", "rep_b"), gauge("seconds", "rep_b"))
	}
	if _, ok := gatheredGauge(t, reg, "lsnode_sync_origin_lag_ops", "origin", "rep_a"); ok {
		t.Error("this node's own origin is exported as lagging")
	}
	out := logs.String()
	if n := strings.Count(out, "catching up with origin"); n != 2 {
		t.Errorf("%d progress lines, want 2 (t0+7s, t0+12s):\n%s", n, out)
	}
	if !strings.Contains(out, "held=40 target=50") || !strings.Contains(out, "ops_per_second=6") ||
		!strings.Contains(out, `"caught up with origin" origin=rep_b held=50`) {
		t.Errorf("progress lines lack figures:\n%s", out)
	}
}

// gatheredGauge reads the gauge name{label=value} from reg.
func gatheredGauge(t *testing.T, reg *prometheus.Registry, name, label, value string) (float64, bool) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetGauge().GetValue(), true
				}
			}
		}
	}
	return 0, false
}
