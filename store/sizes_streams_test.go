package store

import (
	"fmt"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestLargestStreams: the gauge names the streams holding most events,
// ties broken by name, and counts every other stream's events once.
func TestLargestStreams(t *testing.T) {
	counts := map[string]int64{"b": 5, "a": 5, "c": 9, "d": 1, "e": 2}
	named, other := largestStreams(counts, 3)
	if want := []string{"c", "a", "b"}; !slices.Equal(named, want) || other != 3 {
		t.Errorf("largestStreams(_, 3) = %v, %d; want %v, 3", named, other, want)
	}
	named, other = largestStreams(counts, 5)
	if len(named) != 5 || other != 0 {
		t.Errorf("largestStreams(_, 5) = %v, %d; want all five and 0", named, other)
	}
}

// TestSizeGauges_StreamSeriesBounded: a log of more streams than
// maxStreamSeries exports that many per-stream series, and the rest of
// its events and its number of streams in gauges of their own.
func TestSizeGauges_StreamSeriesBounded(t *testing.T) {
	s, _ := openReplica(t, repA)
	streams := maxStreamSeries + 5
	for i := range streams {
		in := note("a", "x")
		in.Stream = fmt.Sprintf("s%03d", i)
		mustAppend(t, s, in)
	}
	in := note("a", "y")
	in.Stream = "s104" // the last by name, named once it holds most
	mustAppend(t, s, in)

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(sizeCollector{s})
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string][]float64{}
	labels := map[string]bool{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			series[f.GetName()] = append(series[f.GetName()], m.GetGauge().GetValue())
			for _, l := range m.GetLabel() {
				labels[l.GetValue()] = true
			}
		}
	}
	if n := len(series["lsnode_store_stream_events"]); n != maxStreamSeries {
		t.Errorf("%d stream_events series, want %d", n, maxStreamSeries)
	}
	if !labels["s104"] || labels["s103"] {
		t.Errorf("the named streams are not the largest: s104 %v, s103 %v", labels["s104"], labels["s103"])
	}
	if got := series["lsnode_store_stream_events_other"]; !slices.Equal(got, []float64{5}) {
		t.Errorf("stream_events_other = %v, want [5]", got)
	}
	if got := series["lsnode_store_streams"]; !slices.Equal(got, []float64{float64(streams)}) {
		t.Errorf("streams = %v, want [%d]", got, streams)
	}
}
