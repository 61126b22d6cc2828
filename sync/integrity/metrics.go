package integrity

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// integrityMetrics are origin integrity's collectors. With a nil
// registerer they exist unregistered, so callers never check for nil.
type integrityMetrics struct {
	integrity    *prometheus.CounterVec
	keyConflicts prometheus.Counter
	signed       prometheus.Counter

	// The same counts for status pages (Counts).
	verified, refused, conflicts, signedN, preverified atomic.Int64
}

func newIntegrityMetrics(reg prometheus.Registerer) *integrityMetrics {
	f := promauto.With(reg)
	return &integrityMetrics{
		integrity: f.NewCounterVec(prometheus.CounterOpts{
			Name: "lsnode_sync_op_integrity_total",
			Help: "Received ops beyond the held prefix by integrity check result: verified, unsigned_accepted, refused_signature, refused_unsigned.",
		}, []string{"result"}),
		keyConflicts: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_sync_origin_key_conflicts_total",
			Help: "Public keys offered for an origin that differ from the key pinned for it (refused).",
		}),
		signed: f.NewCounter(prometheus.CounterOpts{
			Name: "lsnode_sync_ops_signed_total",
			Help: "Own ops signed when served to a peer.",
		}),
	}
}

// Counts are origin integrity's totals since start.
type Counts struct {
	Verified     int64 `json:"verified"`      // received ops whose signature verified
	Refused      int64 `json:"refused"`       // received ops refused (bad or missing signature)
	KeyConflicts int64 `json:"key_conflicts"` // different keys offered for pinned origins
	Signed       int64 `json:"signed"`        // own ops signed when served
	// Preverified counts the verified ops whose signature a session's
	// reader checked while the previous batch was being applied.
	Preverified int64 `json:"preverified"`
}

// Counts returns the totals since start.
func (in *Integrity) Counts() Counts {
	m := in.m
	return Counts{Verified: m.verified.Load(), Refused: m.refused.Load(),
		KeyConflicts: m.conflicts.Load(), Signed: m.signedN.Load(), Preverified: m.preverified.Load()}
}

func (m *integrityMetrics) result(r string) {
	m.integrity.WithLabelValues(r).Inc()
	switch r {
	case "verified":
		m.verified.Add(1)
	case "refused_signature", "refused_unsigned":
		m.refused.Add(1)
	}
}

func (m *integrityMetrics) conflict() {
	m.keyConflicts.Inc()
	m.conflicts.Add(1)
}

func (m *integrityMetrics) signedOne() {
	m.signed.Inc()
	m.signedN.Add(1)
}
