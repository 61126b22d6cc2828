package store

import (
	"context"
	"fmt"
)

// lsnode_search is the full-text index of the events (SQLite FTS5): their
// body, type, stream, room, from_agent and to_agent, tokenized into words
// (unicode61: letters and digits, case and diacritics folded). It is an
// external-content table over events (content_rowid = the event's rowid),
// so it keeps the index and the column sizes bm25 needs, not a second copy
// of the text.
//
// It is a derived table and stays equal to the op set this way: every
// transaction that stores events indexes exactly them, with one statement
// run just before its COMMIT over the rowids it added (txviews.go), so a
// commit holds both or neither; events are never updated or deleted. A
// file that lacks the table (the Python hub's, or an earlier version's)
// gets it at Open with FTS5's 'rebuild', which indexes every event, and
// events another program appended to the file after the last indexed one
// are indexed at Open too (catchUpTxViews). The index's own record of
// what it holds, the rowids of its lsnode_search_docsize table, tells
// which those are, also after a crash. A statement per transaction costs
// less than an AFTER INSERT trigger on events or a statement per event
// (BenchmarkSearchUpkeep), and a trigger would make the Python hub's own
// inserts fail on the file wherever its SQLite lacks FTS5.
const searchDDL = `CREATE VIRTUAL TABLE IF NOT EXISTS lsnode_search USING fts5(
    body, type, stream, room, from_agent, to_agent,
    content = 'events', content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2')`

// searchColumns are the indexed columns, in the table's order.
const searchColumns = `body, type, stream, room, from_agent, to_agent`

func createSearchIndex(ctx context.Context, tx querier) error {
	if _, err := tx.ExecContext(ctx, searchDDL); err != nil {
		return fmt.Errorf("create the search index: %w", err)
	}
	return nil
}

// rebuildSearch indexes every event held, into an empty index.
func rebuildSearch(ctx context.Context, tx querier) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO lsnode_search(lsnode_search) VALUES ('rebuild')`); err != nil {
		return fmt.Errorf("build the search index: %w", err)
	}
	return nil
}

// searchTop is the largest rowid the search index holds (0 when empty).
func searchTop(ctx context.Context, q querier) (int64, error) {
	var top int64
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM lsnode_search_docsize`).Scan(&top); err != nil {
		return 0, fmt.Errorf("read the search index's top: %w", err)
	}
	return top, nil
}

// indexSearch indexes the events with a rowid above after.
func indexSearch(ctx context.Context, q querier, after int64) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO lsnode_search(rowid, `+searchColumns+`)
SELECT rowid, `+searchColumns+` FROM events WHERE rowid > ?`, after); err != nil {
		return fmt.Errorf("index events for search: %w", err)
	}
	return nil
}
