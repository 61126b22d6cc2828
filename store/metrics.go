package store

import (
	"context"
	"errors"
	"maps"
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// metrics are the store's collectors, registered on the injected
// registerer (none when it is nil).
type metrics struct {
	appendSeconds       *prometheus.HistogramVec
	batchSize           prometheus.Histogram
	commitSeconds       prometheus.Histogram
	applied             *prometheus.CounterVec
	quarantined         *prometheus.CounterVec
	applyDelay          prometheus.Histogram
	origins             prometheus.Gauge
	owedLagging         prometheus.Gauge
	subscriptionsLagged prometheus.Counter
	sharedNames         prometheus.Counter
	lingers             *prometheus.CounterVec
	lingerJoined        prometheus.Counter
}

// Label values known in advance. Their series are created at start, at
// 0, so that a rule such as increase(...[15m]) > 0 sees the first
// increment: a series born at 1 shows no increase.
var (
	appendResults     = []string{"ok", "error", "invalid"}
	remoteOutcomes    = []string{"applied", "duplicate", "deferred", "quarantined"}
	quarantineReasons = []string{reasonInvalid, reasonConflict, reasonArtifactInvalid, reasonArtifactConflict, ReasonSignature, ReasonUnsigned}
	lingerOutcomes    = []string{"gathered", "empty"}
)

func newMetrics(reg prometheus.Registerer) *metrics {
	f := promauto.With(reg)
	m := &metrics{
		appendSeconds: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "lsnode_store_append_duration_seconds", Help: "Local write latency (append, ack, task, artifact, patch), queueing and commit included.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}, []string{"result"}),
		batchSize: f.NewHistogram(prometheus.HistogramOpts{
			Name: "lsnode_store_group_commit_batch_size", Help: "Writes sharing one transaction.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 10),
		}),
		commitSeconds: f.NewHistogram(prometheus.HistogramOpts{
			Name: "lsnode_store_commit_duration_seconds", Help: "Time to run and commit one write batch.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}),
		applied: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_store_remote_ops_total", Help: "Remote ops by outcome of apply.",
		}, []string{"outcome"}),
		quarantined: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_store_quarantined_total", Help: "Remote items refused, by reason.",
		}, []string{"reason"}),
		applyDelay: f.NewHistogram(prometheus.HistogramOpts{
			Name: "lsnode_store_apply_delay_seconds", Help: "Origin HLC wall time to local commit of applied ops.",
			// 64 buckets from 1 ms to 60 s, each 19% wider than the last:
			// narrower than 5 ms below 26 ms and 19% above, so a quantile
			// interpolated from them lands within ±5 ms or ±10% of the
			// true one (e2e TestApplyDelayAccuracy checks it).
			Buckets: prometheus.ExponentialBucketsRange(0.001, 60, 64),
		}),
		origins: f.NewGauge(prometheus.GaugeOpts{
			Name: "lsnode_store_origins", Help: "Origins in the version vector.",
		}),
		owedLagging: f.NewGauge(prometheus.GaugeOpts{
			Name: "lsnode_store_owed_rows_lagging", Help: "Stored events that may be owed and whose owed rows are not written yet (Owed derives them at read time); it falls back to 0 every few thousand events.",
		}),
		subscriptionsLagged: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_store_subscriptions_lagged_total", Help: "Op subscriptions dropped for falling behind.",
		}),
		lingers: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_store_commit_lingers_total", Help: "Waits for more writes before a small commit, by whether a write came.",
		}, []string{"outcome"}),
		lingerJoined: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_store_commit_linger_joined_total", Help: "Writes that joined a transaction while the writer lingered.",
		}),
		sharedNames: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_store_shared_agent_name_writes_total", Help: "Local writes by an agent name seen writing through another replica recently.",
		}),
	}
	for _, r := range appendResults {
		m.appendSeconds.WithLabelValues(r)
	}
	for _, o := range remoteOutcomes {
		m.applied.WithLabelValues(o)
	}
	for _, r := range quarantineReasons {
		m.quarantined.WithLabelValues(r)
	}
	for _, o := range lingerOutcomes {
		m.lingers.WithLabelValues(o)
	}
	return m
}

func (m *metrics) observeAppend(start, end time.Time, err error) {
	result := "ok"
	if err != nil {
		result = "error"
		if errors.Is(err, ErrInvalid) {
			result = "invalid"
		}
	}
	m.appendSeconds.WithLabelValues(result).Observe(end.Sub(start).Seconds())
}

func (m *metrics) observeApply(r ApplyResult) {
	m.applied.WithLabelValues("applied").Add(float64(r.Applied))
	m.applied.WithLabelValues("duplicate").Add(float64(r.Duplicates))
	m.applied.WithLabelValues("deferred").Add(float64(r.Deferred))
	m.applied.WithLabelValues("quarantined").Add(float64(r.Quarantined))
}

// registerSizeGauges exports the log's size, read at scrape time: events
// held (the newest local seq; events are never deleted) and bytes on disk
// (database plus WAL).
func (s *Store) registerSizeGauges(reg prometheus.Registerer) {
	if reg == nil {
		return
	}
	f := promauto.With(reg)
	f.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "lsnode_store_events", Help: "Events held by this replica.",
	}, func() float64 {
		seq, err := s.LatestSeq(context.Background())
		if err != nil {
			return math.NaN()
		}
		return float64(seq)
	})
	f.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "lsnode_store_disk_bytes", Help: "Size of the log database and its WAL on disk.",
	}, func() float64 { return float64(s.diskBytes()) })
	var views viewCounts
	f.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "lsnode_store_claim_conflicts", Help: "Owed asks their addressee claimed from two or more replicas (one agent name on two machines); counted at most once a minute.",
	}, func() float64 { return views.read(s).conflicts })
	f.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "lsnode_store_wait_cycles", Help: "Wait-for cycles in the owed set (agents each owing the next an ask, the last owing the first), as many as one cycles answer lists; counted at most once a minute.",
	}, func() float64 { return views.read(s).cycles })
}

// viewCountInterval is how often at most the coordination views' gauges
// count again: a count of the claim conflicts reads every claim of the
// agents that claimed from two replicas and the asks they owe, one of
// the cycles every owed row (about a second each on a 1M-event log), too
// much for every scrape.
const viewCountInterval = time.Minute

// viewCounts holds what the coordination views' gauges serve. A scrape
// counts again only once viewCountInterval has passed since the last
// count, on the store's wall clock, and the log changed since (the counts
// are functions of the op set); between counts the gauges serve the last
// ones. A count that fails serves NaN, and the next one after the
// interval counts whether or not the log changed.
type viewCounts struct {
	mu     sync.Mutex
	at     time.Time        // the last count; zero: none yet
	vv     map[string]int64 // the op set it counted
	totals viewTotals
}

// viewTotals are the counts the gauges serve.
type viewTotals struct {
	conflicts, cycles float64
}

func (v *viewCounts) read(s *Store) viewTotals {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := s.wall.Now()
	if since := now.Sub(v.at); !v.at.IsZero() && since >= 0 && since < viewCountInterval {
		return v.totals
	}
	vv := s.VersionVector()
	if v.vv != nil && maps.Equal(vv, v.vv) {
		return v.totals
	}
	v.at, v.vv, v.totals = now, vv, countViews(s)
	if math.IsNaN(v.totals.conflicts) || math.IsNaN(v.totals.cycles) {
		v.vv = nil
	}
	return v.totals
}

// countViews counts the coordination views' gauges: the owed asks in
// claim conflict and the wait-for cycles Cycles finds with its default
// bounds.
func countViews(s *Store) viewTotals {
	ctx := context.Background()
	t := viewTotals{conflicts: math.NaN(), cycles: math.NaN()}
	if counts, err := s.ClaimConflictCounts(ctx); err == nil {
		t.conflicts = 0
		for _, n := range counts {
			t.conflicts += float64(n)
		}
	}
	if w, err := s.waitCycles(ctx, CycleQuery{}); err == nil {
		t.cycles = float64(len(w.found))
	}
	return t
}
