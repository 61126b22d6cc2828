package httpapi

import (
	"math"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// catchUpPayload is /statusz's "catch_up" key: one row per origin a peer
// told this node about (OriginProgress), seconds to the millisecond and
// the rate to the op.
func catchUpPayload(rows []OriginProgress) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = pyjson.Object{
			{Key: "origin", Value: r.Origin},
			{Key: "held", Value: r.Held},
			{Key: "target", Value: r.Target},
			{Key: "behind_ops", Value: r.BehindOps},
			{Key: "behind_seconds", Value: math.Round(r.BehindSeconds*1000) / 1000},
			{Key: "ops_per_second", Value: math.Round(r.OpsPerSecond)},
		}
	}
	return out
}

// integrityPayload is /statusz's "integrity" key; null without one.
func (s *Server) integrityPayload() pyjson.Object {
	if s.cfg.Integrity == nil {
		return nil
	}
	st := s.cfg.Integrity.IntegrityStatus()
	return pyjson.Object{
		{Key: "key_fingerprint", Value: st.KeyFingerprint},
		{Key: "unsigned_origins", Value: st.UnsignedOrigins},
		{Key: "ops_verified", Value: st.Verified},
		{Key: "ops_refused", Value: st.Refused},
		{Key: "key_conflicts", Value: st.KeyConflicts},
		{Key: "ops_signed", Value: st.Signed},
	}
}
