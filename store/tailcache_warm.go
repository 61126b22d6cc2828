package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// warmTail fills the read cache with the log's newest events, as many as
// its budget holds and at most Config.TailCacheWarmEvents (the window then
// grows with commits), in one backward scan of the events table. It runs
// in Open before the writer starts, so nothing commits meanwhile; vv is the
// store's version vector of that state.
func (s *Store) warmTail(ctx context.Context, vv map[string]int64) error {
	t := s.tail
	if t.budget <= 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reset()
	rows, err := s.readDB.QueryContext(ctx, `SELECT `+eventColumns+` FROM events ORDER BY rowid DESC`)
	if err != nil {
		return fmt.Errorf("warm read cache: %w", err)
	}
	var newest []Event // newest first
	var used, prevSeq int64
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			rows.Close()
			return fmt.Errorf("warm read cache: %w", err)
		}
		if used += tailSize(&e); used > t.budget || len(newest) == s.cfg.TailCacheWarmEvents {
			prevSeq = e.Seq // the newest event left below the window
			break
		}
		newest = append(newest, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("warm read cache: %w", err)
	}
	slices.Reverse(newest)
	if err := s.warmLinks(ctx, newest); err != nil {
		return err
	}
	below, err := s.originsBelow(ctx, vv, prevSeq)
	if err != nil {
		return err
	}
	t.prevSeq, t.below = prevSeq, below
	for _, e := range newest {
		if !t.add(e, false) {
			t.reset()
			return nil
		}
	}
	t.setVV(vv)
	t.ready = true
	return nil
}

// warmLinks attaches artifact ids to events read in local seq order.
func (s *Store) warmLinks(ctx context.Context, evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	idx := make(map[string]int, len(evs))
	for i, e := range evs {
		idx[e.ID] = i
	}
	rows, err := s.readDB.QueryContext(ctx, `SELECT ea.event_id, ea.artifact_id FROM events e
JOIN event_artifacts ea ON ea.event_id = e.id WHERE e.rowid >= ?`, evs[0].Seq)
	if err != nil {
		return fmt.Errorf("warm read cache links: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ev, art string
		if err := rows.Scan(&ev, &art); err != nil {
			return fmt.Errorf("warm read cache links: %w", err)
		}
		if i, ok := idx[ev]; ok {
			evs[i].ArtifactIDs = append(evs[i].ArtifactIDs, art)
		}
	}
	return rows.Err()
}

// originsBelow is, per origin, the largest origin_seq among events with
// local seq <= prevSeq (none when prevSeq is 0).
func (s *Store) originsBelow(ctx context.Context, vv map[string]int64, prevSeq int64) (map[string]int64, error) {
	out := map[string]int64{}
	if prevSeq == 0 {
		return out, nil
	}
	for origin := range vv {
		// Walks the origin's index back from its top: through the window's
		// events of that origin only.
		var top sql.NullInt64
		err := s.readDB.QueryRowContext(ctx, `SELECT origin_seq FROM events WHERE origin_replica = ? AND rowid <= ?
ORDER BY origin_seq DESC LIMIT 1`, origin, prevSeq).Scan(&top)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("warm read cache: %w", err)
		}
		out[origin] = top.Int64
	}
	return out, nil
}
