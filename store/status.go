package store

import (
	"context"
	"fmt"
)

// Stats returns counters for status pages and metrics.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.readDB.QueryRowContext(ctx, `SELECT
 (SELECT coalesce(max(rowid), 0) FROM events),
 (SELECT count(*) FROM artifacts),
 (SELECT count(*) FROM lsnode_quarantine)`).Scan(&st.Events, &st.Artifacts, &st.Quarantined)
	if err != nil {
		return st, fmt.Errorf("read stats: %w", err)
	}
	st.Origins = len(s.VersionVector())
	st.DiskBytes = s.diskBytes()
	return st, nil
}

// diskBytes is the size of the database and its WAL.
func (s *Store) diskBytes() int64 {
	return s.fileSize(DBFile) + s.fileSize(DBFile+"-wal")
}

// QuarantinedCount is how many remote items were refused: what readiness
// probes read, without the artifact count Stats scans for.
func (s *Store) QuarantinedCount(ctx context.Context) (int64, error) {
	var n int64
	if err := s.readDB.QueryRowContext(ctx, `SELECT count(*) FROM lsnode_quarantine`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count quarantine: %w", err)
	}
	return n, nil
}

// Quarantine lists the newest refused remote items.
func (s *Store) Quarantine(ctx context.Context, limit int) ([]QuarantineEntry, error) {
	rows, err := s.readDB.QueryContext(ctx, `SELECT id, received_at, coalesce(origin_replica, ''), coalesce(origin_seq, 0),
coalesce(item_id, ''), reason, detail, payload FROM lsnode_quarantine ORDER BY id DESC LIMIT ?`, clampLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("read quarantine: %w", err)
	}
	defer rows.Close()
	out := []QuarantineEntry{}
	for rows.Next() {
		var q QuarantineEntry
		var payload string
		if err := rows.Scan(&q.ID, &q.ReceivedAt, &q.OriginReplica, &q.OriginSeq, &q.ItemID, &q.Reason, &q.Detail, &payload); err != nil {
			return nil, fmt.Errorf("read quarantine: %w", err)
		}
		q.Payload = []byte(payload)
		out = append(out, q)
	}
	return out, rows.Err()
}
