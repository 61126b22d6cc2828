package store

import (
	"context"
	"fmt"
	"strconv"
)

// The owed rows lag the log. An event's owed row (DESIGN.md §3) is not
// written by the transaction that stores the event but by a later one,
// with the rows of every event stored since the last such write, once
// owedLagEvents events have gathered or owedLagPerAgent of them are
// addressed to one agent. Until then Owed derives the rows of the events
// past the owed mark at read time, with the same condition (owedTailSQL),
// so the answer does not depend on whether the rows are written yet.
//
// Why: a commit pays for every b-tree page it dirties. The owed rows of a
// group commit's 31 events, written with them, dirty the same few pages
// of lsnode_owed commit after commit; written hundreds at a time they fill
// them. BENCHMARKS.md, session 7, has the figures.
const (
	// owedLagEvents bounds the events whose owed rows wait, and so the
	// size of the transaction that writes them.
	owedLagEvents = 8192
	// owedLagPerAgent bounds the waiting events addressed to one agent,
	// and so the extra rows an Owed read visits.
	owedLagPerAgent = 512
)

// owedMarkKey names the lsnode_meta entry that holds the owed mark: every
// event with a rowid at or below it has its owed row written.
const owedMarkKey = "owed_event_rowid"

// owedMarkSQL is the owed mark as an SQL expression, read in the reading
// statement's own snapshot. A file whose lsnode_meta has no mark was
// written by a version that wrote owed rows in the event's own
// transaction: all of its rows are written.
const owedMarkSQL = `coalesce((SELECT CAST(value AS INTEGER) FROM lsnode_meta WHERE key = '` + owedMarkKey + `'), (SELECT max(rowid) FROM events), 0)`

// owedLag is the writer goroutine's account of the events stored past the
// owed mark. Only the writer goroutine uses it.
type owedLag struct {
	maxEvents, maxPerAgent int // the bounds: owedLagEvents, owedLagPerAgent

	mark     int64          // every event with rowid <= mark has its owed row
	top      int64          // the largest rowid stored past mark; 0 when none
	keyed    bool           // an event past mark carries an idempotency key
	total    int            // events past mark that may be owed
	perAgent map[string]int // the same, by addressee
}

// mayBeOwed reports whether e is addressed to one other agent: the events
// that can have an owed row.
func mayBeOwed(e *Event) bool {
	return e.ToAgent != "" && e.ToAgent != "*" && e.ToAgent != e.FromAgent
}

// due reports whether the transaction w is about to commit must write the
// owed rows: it asked to, or with its events the lag would reach a bound.
func (l *owedLag) due(w *writeTx) bool {
	if w.writeOwed {
		return l.top > 0 || w.lastRowid > 0
	}
	if l.total+w.addressedTotal >= l.maxEvents {
		return true
	}
	for agent, n := range w.addressed {
		if l.perAgent[agent]+n >= l.maxPerAgent {
			return true
		}
	}
	return false
}

// write derives the owed rows of every event past the mark, w's included,
// and moves the mark past them, inside w's transaction. It returns the new
// mark, which the lag takes once the transaction commits (committed).
func (l *owedLag) write(w *writeTx) (int64, error) {
	upTo := max(l.top, w.lastRowid)
	if err := indexOwed(w.ctx, w.tx, l.mark, upTo, l.keyed || w.keyed); err != nil {
		return 0, err
	}
	if err := saveOwedMark(w.ctx, w.tx, upTo); err != nil {
		return 0, err
	}
	return upTo, nil
}

// committed accounts for w's commit: with written set, the owed rows up to
// mark were written by it; otherwise w's events join the lag.
func (l *owedLag) committed(w *writeTx, written bool, mark int64) {
	if written {
		l.mark, l.top, l.keyed, l.total = mark, 0, false, 0
		clear(l.perAgent)
		return
	}
	if w.lastRowid == 0 {
		return
	}
	l.top = max(l.top, w.lastRowid)
	l.keyed = l.keyed || w.keyed
	l.total += w.addressedTotal
	for agent, n := range w.addressed {
		l.perAgent[agent] += n
	}
}

// catchUpOwed writes, at Open, the owed rows of the events past the saved
// owed mark, or past indexed (the closures' watermark) when no mark is
// saved: a file of a version that wrote owed rows with their events, or of
// the Python hub, holds them up to there. Writing a row twice changes
// nothing.
func catchUpOwed(ctx context.Context, tx querier, indexed int64) error {
	mark, saved, err := savedWatermark(ctx, tx, owedMarkKey)
	if err != nil {
		return err
	}
	if !saved {
		mark = indexed
	}
	var top int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM events`).Scan(&top); err != nil {
		return fmt.Errorf("read newest rowid: %w", err)
	}
	if err := indexOwed(ctx, tx, mark, top, true); err != nil {
		return err
	}
	return saveOwedMark(ctx, tx, top)
}

// newOwedLag is the account of a store whose owed rows are written up to
// mark.
func newOwedLag(mark int64) owedLag {
	return owedLag{maxEvents: owedLagEvents, maxPerAgent: owedLagPerAgent, mark: mark, perAgent: map[string]int{}}
}

// saveOwedMark records that every event up to rowid has its owed row.
func saveOwedMark(ctx context.Context, q querier, rowid int64) error {
	if _, err := q.ExecContext(ctx, `INSERT OR REPLACE INTO lsnode_meta (key, value) VALUES (?, ?)`,
		owedMarkKey, strconv.FormatInt(rowid, 10)); err != nil {
		return fmt.Errorf("save owed mark: %w", err)
	}
	return nil
}

// writeOwedRows writes the owed rows of every event stored so far: tests
// and benchmarks use it to compare the table itself, or to charge the
// work a steady load would do in time.
func (s *Store) writeOwedRows(ctx context.Context) error {
	return s.write(ctx, func(w *writeTx) error {
		w.writeOwed = true
		return nil
	})
}
