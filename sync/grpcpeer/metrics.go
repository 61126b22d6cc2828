package grpcpeer

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
)

var _ lssync.Observer = (*metrics)(nil)

// metrics holds the replication collectors of one Replicator; it is the
// Observer of every session's Link. A nil *metrics records nothing, so a
// Replicator runs without a registry in tests.
// The peer and origin labels are replica ids: bounded by the number of
// replicas that ever wrote to or joined the mesh (origins are never
// forgotten: a vector holds every origin for good).
type metrics struct {
	rounds      *prometheus.CounterVec // result: match, mismatch
	ops         *prometheus.CounterVec // path: pull, push; result: applied, duplicate, quarantined, deferred
	artifacts   prometheus.Counter
	frameBytes  *prometheus.CounterVec // direction: sent, received; kind: frame kind
	pushDropped prometheus.Counter
	sessions    *prometheus.GaugeVec // direction: outbound, inbound
	refused     prometheus.Counter   // inbound sessions refused at MaxInboundSessions
	offset      *prometheus.GaugeVec // peer
	skewed      *prometheus.GaugeVec // peer
	lag         *prometheus.GaugeVec // peer
	lagSeconds  *prometheus.GaugeVec // peer
	originOps   *prometheus.GaugeVec // origin
	originSecs  *prometheus.GaugeVec // origin
}

// newMetrics registers the collectors on reg; nil reg means no metrics.
func newMetrics(reg prometheus.Registerer) *metrics {
	if reg == nil {
		return nil
	}
	f := promauto.With(reg)
	m := &metrics{
		rounds: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_sync_rounds_total",
			Help: "Anti-entropy digest rounds answered, by result (match = idle round).",
		}, []string{"result"}),
		ops: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_sync_ops_total",
			Help: "Remote ops received, by path (pull, push) and apply result.",
		}, []string{"path", "result"}),
		artifacts: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_sync_artifacts_applied_total",
			Help: "Remote artifacts newly stored.",
		}),
		frameBytes: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_sync_frame_bytes_total",
			Help: "Session frame payload bytes, by direction and frame kind.",
		}, []string{"direction", "kind"}),
		pushDropped: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_sync_push_dropped_total",
			Help: "Committed op lists or push frames dropped for a slow peer (repaired by pull).",
		}),
		sessions: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lsnode_sync_sessions",
			Help: "Open replication sessions, by direction.",
		}, []string{"direction"}),
		refused: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_sync_sessions_refused_total",
			Help: "Inbound replication sessions refused because the node was serving its maximum of sessions at once.",
		}),
		offset: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lsnode_sync_peer_clock_offset_seconds",
			Help: "Measured wall-clock offset of a peer (peer minus local).",
		}, []string{"peer"}),
		skewed: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lsnode_sync_peer_clock_skewed",
			Help: "1 when a peer's clock offset exceeds the max clock offset.",
		}, []string{"peer"}),
		lag: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lsnode_sync_peer_lag_ops",
			Help: "Ops a peer holds that this node does not, from the last known vectors.",
		}, []string{"peer"}),
		lagSeconds: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lsnode_sync_peer_lag_seconds",
			Help: "How far behind a peer this node is in time: 0 when caught up, else the age of the oldest op in the latest batch that stored ops.",
		}, []string{"peer"}),
		originOps: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lsnode_sync_origin_lag_ops",
			Help: "Ops of an origin that some gRPC peer is known to hold and this node does not.",
		}, []string{"origin"}),
		originSecs: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "lsnode_sync_origin_lag_seconds",
			Help: "How far behind this node's copy of an origin is in time: 0 when caught up, else now minus the later of the newest held op's origin time and when the gap was seen.",
		}, []string{"origin"}),
	}
	// Every (path, result) series exists from the start, at 0, so that a
	// rule on increase() sees the first op.
	for _, path := range []string{"pull", "push"} {
		for _, result := range []string{"applied", "duplicate", "quarantined", "deferred"} {
			m.ops.WithLabelValues(path, result)
		}
	}
	return m
}

// Round implements lssync.Observer.
func (m *metrics) Round(match bool) {
	if m == nil {
		return
	}
	if match {
		m.rounds.WithLabelValues("match").Inc()
	} else {
		m.rounds.WithLabelValues("mismatch").Inc()
	}
}

// Applied implements lssync.Observer; the session's applier calls it too
// (Link.ApplyBehind).
func (m *metrics) Applied(path string, r store.ApplyResult) {
	if m == nil {
		return
	}
	m.ops.WithLabelValues(path, "applied").Add(float64(r.Applied))
	m.ops.WithLabelValues(path, "duplicate").Add(float64(r.Duplicates))
	m.ops.WithLabelValues(path, "quarantined").Add(float64(r.Quarantined))
	m.ops.WithLabelValues(path, "deferred").Add(float64(r.Deferred))
	m.artifacts.Add(float64(r.Artifacts))
}

func (m *metrics) frame(direction, kind string, size int) {
	if m == nil {
		return
	}
	m.frameBytes.WithLabelValues(direction, kind).Add(float64(size))
}

func (m *metrics) dropped() {
	if m != nil {
		m.pushDropped.Inc()
	}
}

func (m *metrics) sessionRefused() {
	if m != nil {
		m.refused.Inc()
	}
}

func (m *metrics) session(direction string, delta float64) {
	if m != nil {
		m.sessions.WithLabelValues(direction).Add(delta)
	}
}

// ClockOffset implements lssync.Observer.
func (m *metrics) ClockOffset(peer string, offset time.Duration, skewed bool) {
	if m == nil {
		return
	}
	m.offset.WithLabelValues(peer).Set(offset.Seconds())
	v := 0.0
	if skewed {
		v = 1
	}
	m.skewed.WithLabelValues(peer).Set(v)
}

func (m *metrics) peerLag(peer string, ops int64, seconds float64, known bool) {
	if m != nil {
		m.lag.WithLabelValues(peer).Set(float64(ops))
		if known {
			m.lagSeconds.WithLabelValues(peer).Set(seconds)
		}
	}
}

// forget drops the per-peer series of a peer that left.
func (m *metrics) forget(peer string) {
	if m == nil {
		return
	}
	m.forgetClock(peer)
	m.lag.DeleteLabelValues(peer)
	m.lagSeconds.DeleteLabelValues(peer)
}

// forgetClock drops a peer's clock series, once no session measures it.
func (m *metrics) forgetClock(peer string) {
	if m == nil {
		return
	}
	m.offset.DeleteLabelValues(peer)
	m.skewed.DeleteLabelValues(peer)
}

func (m *metrics) originLag(origin string, ops int64, seconds float64) {
	if m != nil {
		m.originOps.WithLabelValues(origin).Set(float64(ops))
		m.originSecs.WithLabelValues(origin).Set(seconds)
	}
}
