package store

import (
	"context"
	"fmt"
)

// StreamInfo is one stream of the log: how many events it holds (at
// most StreamCountCap, Capped when it holds more) and the created_at of
// its newest one.
type StreamInfo struct {
	Stream     string
	Events     int64
	Capped     bool
	LastActive string
}

// StreamCountCap bounds the events Streams counts in one stream, so that
// its cost does not grow with the log: a busier stream is reported as
// holding at least this many.
const StreamCountCap = 10000

// streamsByRecency lists the distinct streams with the created_at of the
// newest event of each, by walking the stream index from one stream to
// the next instead of over every event.
const streamsByRecency = `WITH RECURSIVE s(stream) AS (
  SELECT (SELECT min(stream) FROM events)
  UNION ALL
  SELECT (SELECT min(stream) FROM events WHERE stream > s.stream) FROM s WHERE s.stream IS NOT NULL
)
SELECT stream, (SELECT max(created_at) FROM events WHERE stream = s.stream) AS last
FROM s WHERE stream IS NOT NULL ORDER BY last DESC, stream LIMIT ?`

// streamCount counts a stream's events up to a bound.
const streamCount = `SELECT count(*) FROM (SELECT 1 FROM events WHERE stream = ? LIMIT ?)`

// Streams lists the limit most recently active streams that scope may
// read (nil: all), with their last activity and event counts; more
// reports that other streams follow. Without a scope the walk visits
// each stream once in the stream index and counts at most
// StreamCountCap events of each, so its cost depends on the number of
// streams, not on the length of the log. With a scope it folds the
// events the scope reads, which a mailbox's indexes find, and counts
// them all.
func (s *Store) Streams(ctx context.Context, scope *ReadScope, limit int) (streams []StreamInfo, more bool, err error) {
	limit = clampLimit(limit)
	if scope != nil {
		cond, args := scope.condition("")
		streams, err = s.streamRows(ctx, `SELECT stream, max(created_at) AS last, count(*) FROM events WHERE `+cond+
			` GROUP BY stream ORDER BY last DESC, stream LIMIT ?`, append(args, limit+1)...)
	} else {
		streams, err = s.streamRows(ctx, streamsByRecency, limit+1)
	}
	if err != nil {
		return nil, false, err
	}
	if more = len(streams) > limit; more {
		streams = streams[:limit]
	}
	if scope != nil {
		return streams, more, nil
	}
	for i := range streams {
		if err := s.readDB.QueryRowContext(ctx, streamCount, streams[i].Stream, StreamCountCap+1).Scan(&streams[i].Events); err != nil {
			return nil, false, fmt.Errorf("streams: count %s: %w", streams[i].Stream, err)
		}
		if streams[i].Capped = streams[i].Events > StreamCountCap; streams[i].Capped {
			streams[i].Events = StreamCountCap
		}
	}
	return streams, more, nil
}

// streamRows reads (stream, last activity[, count]) rows.
func (s *Store) streamRows(ctx context.Context, query string, args ...any) ([]StreamInfo, error) {
	rows, err := s.readDB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("streams: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("streams: %w", err)
	}
	out := []StreamInfo{}
	for rows.Next() {
		var st StreamInfo
		dst := []any{&st.Stream, &st.LastActive, &st.Events}[:len(cols)]
		if err := rows.Scan(dst...); err != nil {
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
