package store

import (
	"context"
	"fmt"
	"strconv"
)

// The owed rows lag the log. An event's owed row (docs/architecture.md#owed-ness) is not
// written by the transaction that stores the event but by a later one,
// with the rows of every event stored since the last such write, once
// owedLagEvents events have gathered or owedLagPerAgent of them are
// addressed to one agent. Until then Owed derives the rows of the events
// past the owed mark at read time, with the same condition (owedCondition),
// so the answer does not depend on whether the rows are written yet.
//
// Why: a commit pays for every b-tree page it dirties. The owed rows of a
// group commit's events, written with them, dirty the same pages of
// lsnode_owed commit after commit; written thousands at a time they fill
// them. Applying 1M fleet events went from 64 % of the raw insert rate to
// 85-86 %. The price is at read time: an agent
// with 511 events not written yet gets its Owed page in about 2 ms instead
// of 0.1 ms.
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
// statement's own snapshot. Open always leaves a mark (adoptOwedMark);
// without one every event would count as past it, which Owed's UNION
// still answers right.
const owedMarkSQL = `coalesce((SELECT CAST(value AS INTEGER) FROM lsnode_meta WHERE key = '` + owedMarkKey + `'), 0)`

// owedLag is the writer goroutine's account of the events stored past the
// owed mark. Only the writer goroutine uses it.
type owedLag struct {
	maxEvents, maxPerAgent int // the bounds: owedLagEvents, owedLagPerAgent

	mark     int64          // every event with rowid <= mark has its owed row (writeOwed)
	top      int64          // the largest rowid stored past mark; 0 when none
	keyed    bool           // an event past mark carries an idempotency key
	total    int            // events past mark that may be owed
	perAgent map[string]int // the same, by addressee
	most     int            // the largest count in perAgent
}

// mayBeOwed reports whether e is addressed to one other agent: the events
// that can have an owed row.
func mayBeOwed(e *Event) bool {
	return e.ToAgent != "" && e.ToAgent != "*" && e.ToAgent != e.FromAgent
}

// mayOwe is a stored event that may be owed: its addressee, its asker and
// its rowid.
type mayOwe struct {
	to, from string
	rowid    int64
}

// add accounts for the events of a committed transaction.
func (l *owedLag) add(w *writeTx) {
	if w.lastRowid == 0 {
		return
	}
	l.top = max(l.top, w.lastRowid)
	l.keyed = l.keyed || w.keyed
	for _, m := range w.mayOwe {
		l.count(m.to)
	}
}

// count accounts for one more event past the mark addressed to agent.
func (l *owedLag) count(agent string) {
	l.total++
	l.perAgent[agent]++
	l.most = max(l.most, l.perAgent[agent])
}

// full reports whether the events past the mark reach a bound.
func (l *owedLag) full() bool {
	return l.total >= l.maxEvents || l.most >= l.maxPerAgent
}

// writeOwed writes the owed rows of every event past the mark and moves
// the mark past them, on the writer connection between two batches. Each
// of its two statements is a transaction of its own: SQLite keeps a
// statement journal (a copy of every page a statement changes, so that
// the statement alone can be undone) for a statement inside a larger
// transaction, and for thousands of rows that journal was a quarter of the
// statement's cost. A crash between the two leaves rows past the mark,
// which Owed folds with the same rows it derives (UNION) and the next
// write writes again without effect.
func (s *Store) writeOwed(ctx context.Context) error {
	l := &s.owed
	if l.top == 0 {
		return nil
	}
	if err := indexOwed(ctx, s.writer, l.mark, l.top, l.keyed); err != nil {
		return err
	}
	if err := saveOwedMark(ctx, s.writer, l.top); err != nil {
		return err
	}
	l.mark, l.top, l.keyed, l.total, l.most = l.top, 0, false, 0, 0
	clear(l.perAgent)
	s.pending.reset(l.mark)
	s.metrics.owedLagging.Set(0)
	return nil
}

// adoptOwedMark gives a file without an owed mark one, at Open. A file of
// a version that wrote owed rows with their events, or of the Python hub,
// holds them up to indexed (the closures' watermark): the rows of the
// events past it are written now. Writing a row twice changes nothing.
func adoptOwedMark(ctx context.Context, tx querier, indexed int64) error {
	if _, saved, err := savedWatermark(ctx, tx, owedMarkKey); err != nil || saved {
		return err
	}
	var top int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM events`).Scan(&top); err != nil {
		return fmt.Errorf("read newest rowid: %w", err)
	}
	if err := indexOwed(ctx, tx, indexed, top, true); err != nil {
		return err
	}
	return saveOwedMark(ctx, tx, top)
}

// loadOwedLag rebuilds, at Open and before the writer goroutine starts,
// the account of the events past the saved owed mark, so the lag and its
// bounds carry over a restart. When those events already reach a bound
// (a Python hub wrote to the file meanwhile), their rows are written now.
func (s *Store) loadOwedLag(ctx context.Context) error {
	mark, err := watermark(ctx, s.writer, owedMarkKey)
	if err != nil {
		return err
	}
	lag := newOwedLag(mark)
	rows, err := s.writer.QueryContext(ctx, `SELECT rowid, coalesce(to_agent, ''), from_agent FROM events WHERE rowid > ?`, mark)
	if err != nil {
		return fmt.Errorf("read events past the owed mark: %w", err)
	}
	defer rows.Close()
	var past []mayOwe
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.Seq, &e.ToAgent, &e.FromAgent); err != nil {
			return fmt.Errorf("read events past the owed mark: %w", err)
		}
		lag.top = max(lag.top, e.Seq)
		if mayBeOwed(&e) {
			lag.count(e.ToAgent)
			past = append(past, mayOwe{to: e.ToAgent, from: e.FromAgent, rowid: e.Seq})
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read events past the owed mark: %w", err)
	}
	rows.Close()
	s.pending.reset(mark)
	s.pending.add(lag.top, past)
	lag.keyed = lag.top > 0 // whether one carries a key is not read: assume so
	s.owed = lag
	s.metrics.owedLagging.Set(float64(lag.total))
	if lag.full() {
		return s.writeOwed(ctx)
	}
	return nil
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
