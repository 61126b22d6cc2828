package store

import (
	"context"
	"fmt"
)

// The views written once per transaction: the search rows of the events
// a transaction stored (search_index.go) and their writers' newest stamps
// (heard.go), each by one statement over the rowids the transaction added,
// run just before its COMMIT. The single writer gives a transaction's
// events the rowids above every committed one, so "rowid > the largest
// committed rowid" names exactly them, whatever its savepoints undid.

// writeTxViews writes the per-transaction views of w's events.
func (s *Store) writeTxViews(w *writeTx) error {
	if w.lastRowid <= s.searched {
		return nil
	}
	return indexTxViews(w.ctx, w.tx, s.searched, !s.cfg.noSearchIndex)
}

// indexTxViews writes the per-transaction views of the events with a
// rowid above after; search false leaves the search index out.
func indexTxViews(ctx context.Context, q querier, after int64, search bool) error {
	if search {
		if err := indexSearch(ctx, q, after); err != nil {
			return err
		}
	}
	return recordHeard(ctx, q, after)
}

// catchUpTxViews writes, at Open, the per-transaction views of the events
// the search index does not hold: those another program (the Python hub)
// appended to the file.
func catchUpTxViews(ctx context.Context, tx querier) error {
	top, err := searchTop(ctx, tx)
	if err != nil {
		return err
	}
	return indexTxViews(ctx, tx, top, true)
}

// missingViews records which derived tables a file lacked before
// migrate created them: their rows are then derived from the events
// already held.
type missingViews struct{ progress, heard, search bool }

func findMissingViews(ctx context.Context, tx querier) (missingViews, error) {
	var m missingViews
	for _, t := range []struct {
		name string
		dst  *bool
	}{{"lsnode_progress", &m.progress}, {"lsnode_heard", &m.heard}, {"lsnode_search", &m.search}} {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, t.name).Scan(&n); err != nil {
			return m, fmt.Errorf("inspect %s: %w", t.name, err)
		}
		*t.dst = n == 0
	}
	return m, nil
}

// rebuild derives the rows of the missing tables from the events held.
func (m missingViews) rebuild(ctx context.Context, tx querier) error {
	if m.progress {
		if err := rebuildProgress(ctx, tx); err != nil {
			return err
		}
	}
	if m.heard {
		if err := recordHeard(ctx, tx, 0); err != nil {
			return err
		}
	}
	if m.search {
		return rebuildSearch(ctx, tx)
	}
	return nil
}
