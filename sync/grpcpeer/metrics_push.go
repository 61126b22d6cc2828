package grpcpeer

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// registerPushGauges exports the push side of the open sessions, read at
// scrape time: how many push sessions (one per peer) have a following peer, how many
// committed op lists wait in their push queues (Config.LocalQueue each),
// and how many bytes wait in their send queues (Config.OutboxBytes each).
func (r *Replicator) registerPushGauges(reg prometheus.Registerer) {
	if reg == nil {
		return
	}
	f := promauto.With(reg)
	f.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "lsnode_sync_push_streams",
		Help: "Open sessions whose peer follows: new local and relayed ops are pushed to it.",
	}, func() float64 {
		n := 0
		for _, s := range r.pushSessions() {
			if s.status.Load().PeerFollows {
				n++
			}
		}
		return float64(n)
	})
	f.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "lsnode_sync_push_queue_depth",
		Help: "Committed op lists waiting to be offered for push, summed over sessions.",
	}, func() float64 {
		n := 0
		r.eachSession(func(s *session) { n += len(s.local) })
		return float64(n)
	})
	f.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "lsnode_sync_send_queue_bytes",
		Help: "Frame bytes queued for sending, summed over sessions.",
	}, func() float64 {
		n := 0
		r.eachSession(func(s *session) { n += s.out.queued() })
		return float64(n)
	})
}
