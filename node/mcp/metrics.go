package mcp

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// callMetrics count MCP tool calls. Labels come from bounded sets: the tool
// catalogue and the outcomes.
type callMetrics struct {
	calls    *prometheus.CounterVec   // by tool and result
	duration *prometheus.HistogramVec // by tool
}

// newCallMetrics registers the collectors on reg; a nil reg registers
// nothing (the collectors still count).
func newCallMetrics(reg prometheus.Registerer) *callMetrics {
	f := promauto.With(reg)
	return &callMetrics{
		calls: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_mcp_calls_total",
			Help: "MCP tool calls, by tool and result (ok, failed, invalid, readonly, internal).",
		}, []string{"tool", "result"}),
		duration: f.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "lsnode_mcp_call_duration_seconds",
			Help:    "Time to answer an MCP tool call, by tool; event_wait includes its wait.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 12),
		}, []string{"tool"}),
	}
}

func (m *callMetrics) observe(tool, result string, elapsed time.Duration) {
	m.calls.WithLabelValues(tool, result).Inc()
	m.duration.WithLabelValues(tool).Observe(elapsed.Seconds())
}
