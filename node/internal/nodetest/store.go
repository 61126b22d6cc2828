package nodetest

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/store"
)

// OpenStore opens a store in a temp dir, closed when the test ends.
func OpenStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Append appends an event to st and returns it; the routing fields left
// empty get defaults (task.request, project/x, delegation, alice).
func Append(t testing.TB, st *store.Store, in store.AppendInput) store.Event {
	t.Helper()
	if in.Type == "" {
		in.Type = "task.request"
	}
	if in.Stream == "" {
		in.Stream = "project/x"
	}
	if in.Room == "" {
		in.Room = "delegation"
	}
	if in.FromAgent == "" {
		in.FromAgent = "alice"
	}
	w, err := st.Append(context.Background(), in)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return w.Event
}

// Metric sums the samples of one metric family of reg (counters and
// gauges).
func Metric(t testing.TB, reg prometheus.Gatherer, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return sum
}

// DiscardLogger logs nothing.
func DiscardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
