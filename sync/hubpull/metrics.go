package hubpull

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/lsnode/lsnode/store"
)

// Results of lsnode_sync_http_pulls_total (one per peer per round).
const (
	pullOK      = "ok"      // every origin pulled to the peer's top
	pullPartial = "partial" // the peer answered; some origin stopped early (see last_error)
	pullError   = "error"   // the round with the peer failed (unreachable, HTTP error, garbage)
)

// httpMetrics holds the HTTP puller's collectors. A nil *httpMetrics
// records nothing. The peer label is the peer's label in peers.json (its
// name, else its URL): one series per configured peer, deleted when the
// peer leaves the file.
type httpMetrics struct {
	pulls     *prometheus.CounterVec // result: ok, partial, error
	ops       *prometheus.CounterVec // result: applied, duplicate, quarantined, deferred, undecodable
	artifacts *prometheus.CounterVec // result: applied, not_found, refused
	up        *prometheus.GaugeVec   // peer
	lag       *prometheus.GaugeVec   // peer
	fileOK    prometheus.Gauge
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	if reg == nil {
		return nil
	}
	f := promauto.With(reg)
	return &httpMetrics{
		pulls: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_sync_http_pulls_total",
			Help: "Pull rounds with HTTP (Python) peers, one per peer per round, by result (ok, partial, error).",
		}, []string{"result"}),
		ops: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_sync_http_ops_total",
			Help: "Ops pulled from HTTP peers, by result (applied, duplicate, quarantined, deferred, undecodable).",
		}, []string{"result"}),
		artifacts: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_sync_http_artifacts_total",
			Help: "Artifacts fetched from HTTP peers, by result (applied, not_found, refused).",
		}, []string{"result"}),
		up: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lsnode_sync_http_peer_up",
			Help: "1 when the last round reached the HTTP peer (named as in peers.json), else 0.",
		}, []string{"peer"}),
		lag: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lsnode_sync_http_peer_lag_ops",
			Help: "origin_seq distance from this node's vector to the HTTP peer's last vector (an upper bound on ops for gapped Python origins).",
		}, []string{"peer"}),
		fileOK: f.NewGauge(prometheus.GaugeOpts{
			Name: "lsnode_sync_http_peers_file_ok",
			Help: "1 when the last read of peers.json succeeded (or it is absent), 0 when it is malformed.",
		}),
	}
}

func (m *httpMetrics) pull(result string) {
	if m != nil {
		m.pulls.WithLabelValues(result).Inc()
	}
}

func (m *httpMetrics) applied(r store.ApplyResult) {
	if m == nil {
		return
	}
	m.ops.WithLabelValues("applied").Add(float64(r.Applied))
	m.ops.WithLabelValues("duplicate").Add(float64(r.Duplicates))
	m.ops.WithLabelValues("quarantined").Add(float64(r.Quarantined))
	m.ops.WithLabelValues("deferred").Add(float64(r.Deferred))
}

func (m *httpMetrics) undecodable() {
	if m != nil {
		m.ops.WithLabelValues("undecodable").Inc()
	}
}

func (m *httpMetrics) artifact(result string, n int) {
	if m != nil && n > 0 {
		m.artifacts.WithLabelValues(result).Add(float64(n))
	}
}

func (m *httpMetrics) peer(label string, up bool, lag int64) {
	if m == nil {
		return
	}
	v := 0.0
	if up {
		v = 1
	}
	m.up.WithLabelValues(label).Set(v)
	m.lag.WithLabelValues(label).Set(float64(lag))
}

func (m *httpMetrics) forget(label string) {
	if m != nil {
		m.up.DeleteLabelValues(label)
		m.lag.DeleteLabelValues(label)
	}
}

func (m *httpMetrics) peersFile(ok bool) {
	if m == nil {
		return
	}
	if ok {
		m.fileOK.Set(1)
	} else {
		m.fileOK.Set(0)
	}
}
