package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// httpMetrics are the collectors of the HTTP surface.
type httpMetrics struct {
	requests    *prometheus.CounterVec   // by route and status code
	duration    *prometheus.HistogramVec // by route; streams excluded
	sseClients  prometheus.Gauge
	sseRefused  prometheus.Counter
	sseFrames   prometheus.Counter
	sseLatency  prometheus.Histogram // commit seen -> frame flushed
	longPolling prometheus.Gauge
	// clientRefused counts per-client cap refusals, by limit (streams, waits).
	clientRefused *prometheus.CounterVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	f := promauto.With(reg)
	return &httpMetrics{
		requests: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_http_requests_total",
			Help: "HTTP requests answered, by route and status code.",
		}, []string{"route", "code"}),
		duration: f.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "lsnode_http_request_duration_seconds",
			Help:    "Time to answer a non-streaming HTTP request, by route.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
		}, []string{"route"}),
		sseClients: f.NewGauge(prometheus.GaugeOpts{
			Name: "lsnode_sse_clients",
			Help: "Open /logstream/stream connections.",
		}),
		sseRefused: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_sse_refused_total",
			Help: "Streams refused with 503 because the client cap was reached.",
		}),
		sseFrames: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_sse_events_sent_total",
			Help: "Event frames written to SSE clients.",
		}),
		sseLatency: f.NewHistogram(prometheus.HistogramOpts{
			Name:    "lsnode_sse_delivery_seconds",
			Help:    "Time from a commit wake-up to the flush of its frames on one stream.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}),
		longPolling: f.NewGauge(prometheus.GaugeOpts{
			Name: "lsnode_http_long_polls",
			Help: "Requests of /logstream/events waiting for events.",
		}),
		clientRefused: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_http_client_limit_refused_total",
			Help: "Requests refused with 429 because their client held its cap of concurrent streams or waits, by limit.",
		}, []string{"limit"}),
	}
}

// observe records one answered request. Streaming routes pass a zero
// elapsed time and are left out of the duration histogram.
func (m *httpMetrics) observe(route string, code int, elapsed time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	if elapsed > 0 {
		m.duration.WithLabelValues(route).Observe(elapsed.Seconds())
	}
}

// metricsHandler serves the registry in the Prometheus text format.
func metricsHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}
