package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// The indexing watermarks in lsnode_meta name the newest event and
// artifact rowids whose closures and idempotency keys are held (owed rows
// have a mark of their own, owedlag.go); Open indexes whatever lies past
// them (indexNewEvents), e.g. events a Python hub wrote to the file.

// watermarkEvery is how many stored items may follow the saved indexing
// watermarks before a batch saves them again. Saving costs two
// pages per commit; a crash re-indexes at most this many items at Open,
// which is idempotent (indexNewEvents).
const watermarkEvery = 4096

// saveFinalWatermarks saves the watermarks at Close, so a clean restart
// re-indexes nothing.
func (s *Store) saveFinalWatermarks() {
	if s.unindexed == 0 {
		return
	}
	ctx := context.Background()
	if _, err := s.writer.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		s.log.Warn("save index watermarks at close", "err", err)
		return
	}
	err := saveWatermarks(ctx, s.writer)
	if err == nil {
		_, err = s.writer.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		s.log.Warn("save index watermarks at close; the next open re-indexes the newest items", "err", errors.Join(err, rollback(ctx, s.writer)))
		return
	}
	s.unindexed = 0
}

// watermark reads one saved watermark (0 when none is saved).
func watermark(ctx context.Context, q querier, key string) (int64, error) {
	n, _, err := savedWatermark(ctx, q, key)
	return n, err
}

// savedWatermark reads one watermark and whether it is saved at all.
func savedWatermark(ctx context.Context, q querier, key string) (n int64, saved bool, err error) {
	var v string
	err = q.QueryRowContext(ctx, `SELECT value FROM lsnode_meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read %s: %w", key, err)
	}
	n, err = strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("read %s: %w", key, err)
	}
	return n, true, nil
}

// saveWatermarks records that everything stored so far is indexed.
func saveWatermarks(ctx context.Context, q querier) error {
	_, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO lsnode_meta (key, value)
SELECT 'indexed_event_rowid', coalesce(max(rowid), 0) FROM events
UNION ALL SELECT 'indexed_artifact_rowid', coalesce(max(rowid), 0) FROM artifacts`)
	if err != nil {
		return fmt.Errorf("save index watermarks: %w", err)
	}
	return nil
}
