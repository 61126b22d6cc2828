package store

import (
	"context"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// maxOpsPage caps one OpsAfter page whatever the caller asks.
const maxOpsPage = 10000

// OpsAfter returns origin's ops with origin_seq > after in origin order,
// at most limit of them and, past the first, at most about maxBytes of
// bodies and metadata (0: no byte bound). PrevSeq chains the page: the
// first op's is after, the next one's the op before it.
func (s *Store) OpsAfter(ctx context.Context, origin string, after int64, limit, maxBytes int) ([]Op, error) {
	o, err := rules.Routing(origin, "origin", true)
	if err != nil {
		return nil, wrapRule(err)
	}
	if _, err := rules.AfterSeq(after); err != nil {
		return nil, wrapRule(err)
	}
	if limit <= 0 {
		limit = rules.MaxListLimit
	}
	limit = min(limit, maxOpsPage)
	evs, err := queryEvents(ctx, s.reads.pool(), `SELECT `+eventColumns+` FROM events
WHERE origin_replica = ? AND origin_seq > ? ORDER BY origin_seq LIMIT ?`, o, after, limit)
	if err != nil {
		return nil, err
	}
	ops := make([]Op, 0, len(evs))
	prev, size := after, 0
	for _, e := range evs {
		size += len(e.Body) + len(e.Metadata) + 256
		if maxBytes > 0 && len(ops) > 0 && size > maxBytes {
			break
		}
		ops = append(ops, Op{Event: e, PrevSeq: prev})
		prev = e.OriginSeq
	}
	if err := s.attachSignatures(ctx, ops); err != nil { // signatures.go
		return nil, err
	}
	return ops, nil
}
