package membership

import "github.com/prometheus/client_golang/prometheus"

// metrics holds the collectors of one Membership.
type metrics struct {
	reg     prometheus.Registerer // nil: nothing registered
	members *stateCollector
	dropped prometheus.Counter
	refused prometheus.Counter
	stalls  prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, count func() map[State]int) *metrics {
	return &metrics{
		reg: reg,
		members: &stateCollector{
			desc: prometheus.NewDesc("lsnode_membership_members",
				"Nodes this node knows of, by state (alive, suspect, dead, left, refused), itself included.",
				[]string{"state"}, nil),
			count: count,
		},
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_membership_events_dropped_total",
			Help: "Membership events dropped because the event queue was full; a reconciliation delivers them.",
		}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_membership_refused_total",
			Help: "Nodes refused (another cluster id or undecodable metadata), counted once per node and reason.",
		}),
		stalls: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_membership_stalls_total",
			Help: "Times this node found it had not run for over a second (SIGSTOP, a paused VM) and announced itself to every peer over TCP.",
		}),
	}
}

func (m *metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.members, m.dropped, m.refused, m.stalls}
}

// register adds the collectors to the Registerer, if any.
func (m *metrics) register() error {
	if m.reg == nil {
		return nil
	}
	for i, c := range m.collectors() {
		if err := m.reg.Register(c); err != nil {
			for _, done := range m.collectors()[:i] {
				m.reg.Unregister(done)
			}
			return err
		}
	}
	return nil
}

func (m *metrics) unregister() {
	if m.reg == nil {
		return
	}
	for _, c := range m.collectors() {
		m.reg.Unregister(c)
	}
}

// stateCollector reports lsnode_membership_members from Members() at
// scrape time, so the gauge is never stale.
type stateCollector struct {
	desc  *prometheus.Desc
	count func() map[State]int
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	counts := c.count()
	for _, s := range allStates {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(counts[s]), string(s))
	}
}

// countStates counts Members() by state.
func (m *Membership) countStates() map[State]int {
	counts := map[State]int{}
	for _, mem := range m.Members() {
		counts[mem.State]++
	}
	return counts
}
