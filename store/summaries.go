package store

import (
	"context"
	"fmt"
)

// StreamInfo is one stream of the log: how many events it holds and the
// created_at of its newest one.
type StreamInfo struct {
	Stream     string
	Events     int64
	LastActive string
}

// Streams lists the streams scope may read (nil: all), the most recently
// active first, each with the events of it the scope may read. The count
// and the newest created_at come from the stream's index, without
// reading the events.
func (s *Store) Streams(ctx context.Context, scope *ReadScope) ([]StreamInfo, error) {
	query, args := `SELECT stream, count(*), max(created_at) FROM events`, []any(nil)
	if scope != nil {
		cond, cargs := scope.condition("")
		query, args = query+" WHERE "+cond, cargs
	}
	rows, err := s.readDB.QueryContext(ctx, query+` GROUP BY stream ORDER BY 3 DESC, 1`, args...)
	if err != nil {
		return nil, fmt.Errorf("streams: %w", err)
	}
	defer rows.Close()
	out := []StreamInfo{}
	for rows.Next() {
		var st StreamInfo
		if err := rows.Scan(&st.Stream, &st.Events, &st.LastActive); err != nil {
			return nil, fmt.Errorf("streams: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// QuarantineReasons counts the quarantined remote items by reason
// (invalid, conflict, signature, unsigned, artifact_invalid, ...).
func (s *Store) QuarantineReasons(ctx context.Context) (map[string]int64, error) {
	rows, err := s.readDB.QueryContext(ctx, `SELECT reason, count(*) FROM lsnode_quarantine GROUP BY reason`)
	if err != nil {
		return nil, fmt.Errorf("quarantine reasons: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var reason string
		var n int64
		if err := rows.Scan(&reason, &n); err != nil {
			return nil, fmt.Errorf("quarantine reasons: %w", err)
		}
		out[reason] = n
	}
	return out, rows.Err()
}
