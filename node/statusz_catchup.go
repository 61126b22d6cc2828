package node

import (
	"math"

	"github.com/lsnode/lsnode/store/pyjson"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// originLags is the per-origin catch-up progress of the gRPC replicator
// (nil on a node without replication).
func (c *cluster) originLags() []grpcpeer.OriginLag {
	if c == nil {
		return nil
	}
	return c.rep.Origins()
}

// catchUpPayload is /statusz's "catch_up" key: one row per origin a peer
// told this node about, with what is held, the target some peer holds,
// how far behind in ops and seconds, and the commit rate of the latest
// progress interval (0 when not catching up).
func catchUpPayload(rows []grpcpeer.OriginLag) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = pyjson.Object{
			{Key: "origin", Value: r.Origin},
			{Key: "held", Value: r.Held},
			{Key: "target", Value: r.Target},
			{Key: "behind_ops", Value: r.Ops()},
			{Key: "behind_seconds", Value: math.Round(r.Seconds*1000) / 1000},
			{Key: "ops_per_second", Value: math.Round(r.Rate)},
		}
	}
	return out
}
