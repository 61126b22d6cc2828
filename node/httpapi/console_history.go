package httpapi

import (
	"sync"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// The mesh page charts replication lag over the last 15 minutes. The
// samples are kept here, in a small ring, rather than only in the
// browser, so that a page opened (or reloaded) shows the minutes before
// it; and they are taken only when a mesh page asks for the mesh, at most
// once a step, rather than by a sampler of their own, so that a node
// nobody watches runs nothing for the console. While no page is open
// nothing is sampled, and the chart shows that stretch as a gap.

const (
	// lagHistoryWindow is how far back the chart reaches.
	lagHistoryWindow = 15 * time.Minute
	// lagHistoryStep is the least time between two samples.
	lagHistoryStep = 2 * time.Second
)

// lagPoint is one series' lag at a sample.
type lagPoint struct {
	Ops     int64    `json:"ops"`
	Seconds *float64 `json:"s"` // nil when not measured
}

// lagSample is the lag of every peer (by member name) and every origin
// (by replica id) at one moment.
type lagSample struct {
	AtMS    int64               `json:"t"`
	Peers   map[string]lagPoint `json:"peers"`
	Origins map[string]lagPoint `json:"origins"`
}

// lagHistory is the ring of samples, oldest first.
type lagHistory struct {
	wall    hlc.WallClock
	mu      sync.Mutex
	samples []lagSample
}

func newLagHistory(wall hlc.WallClock) *lagHistory { return &lagHistory{wall: wall} }

// observe records a sample made by take unless the last one is less
// than a step old, drops the samples older than the window, and returns
// the samples taken after sinceMS.
func (h *lagHistory) observe(take func(atMS int64) lagSample, sinceMS int64) []lagSample {
	now := h.wall.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.samples); n == 0 || now.UnixMilli()-h.samples[n-1].AtMS >= lagHistoryStep.Milliseconds() {
		h.samples = append(h.samples, take(now.UnixMilli()))
	}
	cut := now.Add(-lagHistoryWindow).UnixMilli()
	drop := 0
	for drop < len(h.samples) && h.samples[drop].AtMS < cut {
		drop++
	}
	if drop > 0 {
		h.samples = append(h.samples[:0], h.samples[drop:]...)
	}
	out := []lagSample{}
	for _, s := range h.samples {
		if s.AtMS > sinceMS {
			out = append(out, s)
		}
	}
	return out
}
