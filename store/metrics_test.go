package store

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/lsnode/lsnode/hlc"
)

// openMetered opens a store that registers its collectors on a fresh
// registry.
func openMetered(t *testing.T) (*Store, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	s, err := Open(context.Background(), Config{Dir: t.TempDir(), Wall: hlc.NewManualClock(testClockStart), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, reg
}

// family gathers one metric family (nil when it has no series).
func family(t *testing.T, reg *prometheus.Registry, name string) *dto.MetricFamily {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf
		}
	}
	return nil
}

// labelled returns the series of mf whose label name has value.
func labelled(mf *dto.MetricFamily, name, value string) *dto.Metric {
	for _, m := range mf.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == name && l.GetValue() == value {
				return m
			}
		}
	}
	return nil
}

// TestMetrics_EveryLocalWriteIsTimed: each write the MCP tools make
// (event_append, event_ack, task_create, artifact_put, patch_submit) adds
// exactly one sample to lsnode_store_append_duration_seconds.
func TestMetrics_EveryLocalWriteIsTimed(t *testing.T) {
	s, reg := openMetered(t)
	ctx := context.Background()
	samples := func() uint64 {
		mf := family(t, reg, "lsnode_store_append_duration_seconds")
		if mf == nil {
			return 0
		}
		var n uint64
		for _, m := range mf.GetMetric() {
			n += m.GetHistogram().GetSampleCount()
		}
		return n
	}
	var target string
	writes := []struct {
		tool  string
		write func() error
	}{
		{"event_append", func() error {
			w, err := s.Append(ctx, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a@1", Body: "hello"})
			target = w.Event.ID
			return err
		}},
		{"event_ack", func() error {
			_, err := s.Ack(ctx, AckInput{EventID: target, FromAgent: "b@2", Status: "applied"})
			return err
		}},
		{"task_create", func() error {
			_, _, err := s.TaskCreate(ctx, TaskInput{Project: "p", FromAgent: "a@1", ToAgent: "b@2", Goal: "g", Done: "d", Branch: "main", BaseCommit: "abcdef1"})
			return err
		}},
		{"artifact_put", func() error {
			_, err := s.PutArtifact(ctx, ArtifactInput{Kind: "note", Content: "x", CreatedBy: "a@1"})
			return err
		}},
		{"patch_submit", func() error {
			_, err := s.PatchSubmit(ctx, PatchInput{Content: "diff\n", FromAgent: "b@2", Stream: "s", ToAgent: "a@1"})
			return err
		}},
	}
	for _, w := range writes {
		before := samples()
		if err := w.write(); err != nil {
			t.Fatalf("%s: %v", w.tool, err)
		}
		if got := samples() - before; got != 1 {
			t.Errorf("%s added %d samples to lsnode_store_append_duration_seconds, want 1", w.tool, got)
		}
	}
}

// TestMetrics_LabelledCountersStartAtZero: the labelled counters have a
// series for each known label value from the start, at 0, so that an
// alert on increase() fires on the first increment.
func TestMetrics_LabelledCountersStartAtZero(t *testing.T) {
	_, reg := openMetered(t)
	for _, tc := range []struct {
		name, label string
		values      []string
	}{
		{"lsnode_store_quarantined_total", "reason", []string{"invalid", "conflict", "artifact_invalid", "artifact_conflict", "signature", "unsigned"}},
		{"lsnode_store_remote_ops_total", "outcome", []string{"applied", "duplicate", "deferred", "quarantined"}},
		{"lsnode_store_commit_lingers_total", "outcome", []string{"gathered", "empty"}},
	} {
		mf := family(t, reg, tc.name)
		if mf == nil {
			t.Errorf("%s has no series before its first increment", tc.name)
			continue
		}
		if len(mf.GetMetric()) != len(tc.values) {
			t.Errorf("%s has %d series at start, want %d", tc.name, len(mf.GetMetric()), len(tc.values))
		}
		for _, v := range tc.values {
			m := labelled(mf, tc.label, v)
			if m == nil {
				t.Errorf("%s has no series {%s=%q} at start", tc.name, tc.label, v)
			} else if got := m.GetCounter().GetValue(); got != 0 {
				t.Errorf("%s{%s=%q} = %v at start, want 0", tc.name, tc.label, v, got)
			}
		}
	}
	mf := family(t, reg, "lsnode_store_append_duration_seconds")
	for _, r := range []string{"ok", "error", "invalid"} {
		if mf == nil || labelled(mf, "result", r) == nil {
			t.Errorf("lsnode_store_append_duration_seconds has no series {result=%q} at start", r)
		}
	}
}

// TestMetrics_ViewGaugesCountOnceAMinute: the coordination views' gauges
// (claim conflicts, wait-for cycles) count at the first scrape, serve
// that count to every scrape within viewCountInterval on the store's wall
// clock however the log changes, and count again, both, at the first
// scrape after it.
func TestMetrics_ViewGaugesCountOnceAMinute(t *testing.T) {
	reg := prometheus.NewRegistry()
	wall := hlc.NewManualClock(testClockStart)
	s, err := Open(context.Background(), Config{Dir: t.TempDir(), ReplicaID: repA, Wall: wall, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	want := func(when string, conflicts, cycles float64) {
		t.Helper()
		if got := gaugeValue(t, reg, "lsnode_store_claim_conflicts"); got != conflicts {
			t.Errorf("%s: lsnode_store_claim_conflicts = %v; want %v", when, got, conflicts)
		}
		if got := gaugeValue(t, reg, "lsnode_store_wait_cycles"); got != cycles {
			t.Errorf("%s: lsnode_store_wait_cycles = %v; want %v", when, got, cycles)
		}
	}
	e := mustAppend(t, s, ask("boss", "w", "c1"))
	want("first scrape", 0, 0)
	// w claims the ask here and through a Python hub: a conflict. And w
	// asks boss in turn: boss and w wait on each other.
	wall.Advance(time.Second)
	mustAck(t, s, e.ID, "w", "claimed")
	py := &pyOrigin{replica: "rep_0123456789ab"}
	mustApply(t, s, Batch{Ops: []Op{py.next(rand.New(rand.NewPCG(1, 1)), wall.Now(), "w", "boss", "c1", "claimed")}})
	mustAppend(t, s, ask("w", "boss", "c2"))
	if n, err := s.ClaimConflictCounts(context.Background()); err != nil || n["w"] != 1 {
		t.Fatalf("conflicts %v, %v; want w: 1", n, err)
	}
	if c, err := s.Cycles(context.Background(), CycleQuery{}); err != nil || len(c.Cycles) != 1 {
		t.Fatalf("cycles %+v, %v; want one", c, err)
	}
	want("within the minute", 0, 0)
	wall.Advance(viewCountInterval - 2*time.Second)
	want("a second before the minute", 0, 0)
	wall.Advance(time.Second)
	want("a minute after the first count", 1, 1)
	// Answered, the ask leaves the conflicts and the cycle, a minute after
	// the count.
	mustAck(t, s, e.ID, "w", "applied")
	wall.Advance(viewCountInterval - time.Millisecond)
	want("within the minute after the second count", 1, 1)
	wall.Advance(time.Millisecond)
	want("a minute after the second count", 0, 0)
	// A count that fails (the store is closed) serves NaN.
	mustAppend(t, s, note("boss", "w"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wall.Advance(viewCountInterval)
	for _, name := range []string{"lsnode_store_claim_conflicts", "lsnode_store_wait_cycles"} {
		if got := gaugeValue(t, reg, name); !math.IsNaN(got) {
			t.Errorf("%s of a closed store = %v; want NaN", name, got)
		}
	}
}
