package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
)

// pythonDDL is the Python hub's schema, statement for statement, so that a
// file created by either implementation opens in the other.
const pythonDDL = `
CREATE TABLE IF NOT EXISTS events (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    stream TEXT NOT NULL,
    room TEXT NOT NULL,
    topic TEXT,
    from_agent TEXT NOT NULL,
    to_agent TEXT,
    correlation_id TEXT,
    branch TEXT,
    base_commit TEXT,
    status TEXT,
    body TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    metadata_json TEXT NOT NULL DEFAULT '{}',
    origin_replica TEXT,
    origin_seq INTEGER,
    hlc TEXT
);
CREATE INDEX IF NOT EXISTS events_stream_created_idx ON events(stream, created_at);
CREATE INDEX IF NOT EXISTS events_correlation_idx ON events(correlation_id, created_at);
CREATE INDEX IF NOT EXISTS events_to_agent_idx ON events(to_agent, created_at);
CREATE INDEX IF NOT EXISTS events_type_idx ON events(type, created_at);
CREATE TABLE IF NOT EXISTS artifacts (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    content TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    metadata_json TEXT NOT NULL DEFAULT '{}',
    origin_replica TEXT
);
CREATE INDEX IF NOT EXISTS artifacts_sha256_idx ON artifacts(sha256);
CREATE TABLE IF NOT EXISTS event_artifacts (
    event_id TEXT NOT NULL,
    artifact_id TEXT NOT NULL,
    PRIMARY KEY (event_id, artifact_id)
);
`

// lsnodeDDL holds lsnode's additive tables and indexes. Every derived table
// is a function of the op set alone, so it converges with the ops; it is
// rebuilt from events when missing (a file last written by the Python hub).
// lsnode_owed is kept in the order Owed pages it (by agent, then HLC) with
// no rowid, so an owed row costs three b-tree inserts (the table, the
// thread index and the asker's index, which Awaiting pages) instead of
// five, and two when it has no thread (the thread index is partial:
// closing a thread names one). lsnode_progress holds the replies that
// claim an ask or say it is ready (progress.go), lsnode_heard each
// writer's newest stamp (heard.go), and lsnode_search the full-text index
// (search_index.go). An index an earlier version kept is
// dropped: lsnode_events_from_agent_idx, which dirtied one page per
// writing agent in every commit (a third of the 32-agent append rate) to
// serve only the roster, now a pass over the HLC index (Agents).
const lsnodeDDL = `
CREATE TABLE IF NOT EXISTS lsnode_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS lsnode_quarantine (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    received_at TEXT NOT NULL,
    origin_replica TEXT,
    origin_seq INTEGER,
    item_id TEXT,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    payload TEXT NOT NULL,
    advanced INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS lsnode_quarantine_slot_idx ON lsnode_quarantine(origin_replica, origin_seq);
CREATE TABLE IF NOT EXISTS lsnode_closures (
    event_id TEXT PRIMARY KEY,
    agent TEXT NOT NULL,
    ack_of TEXT,
    correlation_id TEXT,
    hlc TEXT NOT NULL,
    ctx_json TEXT
);
CREATE INDEX IF NOT EXISTS lsnode_closures_ack_idx ON lsnode_closures(agent, ack_of);
CREATE INDEX IF NOT EXISTS lsnode_closures_corr_idx ON lsnode_closures(agent, correlation_id);
CREATE TABLE IF NOT EXISTS lsnode_idempotency (
    kind TEXT NOT NULL,
    from_agent TEXT NOT NULL,
    key TEXT NOT NULL,
    item_id TEXT NOT NULL,
    rank TEXT NOT NULL,
    canonical TEXT NOT NULL,
    PRIMARY KEY (kind, from_agent, key, item_id)
);
CREATE INDEX IF NOT EXISTS lsnode_idempotency_item_idx ON lsnode_idempotency(item_id);
CREATE TABLE IF NOT EXISTS lsnode_owed (
    agent TEXT NOT NULL,
    hlc TEXT NOT NULL,
    origin_replica TEXT NOT NULL,
    origin_seq INTEGER NOT NULL,
    stream TEXT NOT NULL,
    event_id TEXT NOT NULL,
    correlation_id TEXT,
    from_agent TEXT NOT NULL,
    PRIMARY KEY (agent, hlc, origin_replica, origin_seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS lsnode_owed_thread_idx ON lsnode_owed(agent, correlation_id) WHERE correlation_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS lsnode_owed_from_idx ON lsnode_owed(from_agent, hlc, origin_replica, origin_seq);
CREATE TABLE IF NOT EXISTS lsnode_progress (
    agent TEXT NOT NULL,
    correlation_id TEXT NOT NULL,
    hlc TEXT NOT NULL,
    event_id TEXT NOT NULL,
    status TEXT NOT NULL,
    ack_of TEXT,
    origin_replica TEXT NOT NULL,
    ctx_json TEXT,
    PRIMARY KEY (agent, correlation_id, hlc, event_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS lsnode_progress_ack_idx ON lsnode_progress(agent, ack_of) WHERE ack_of IS NOT NULL;
CREATE TABLE IF NOT EXISTS lsnode_heard (
    agent TEXT PRIMARY KEY,
    hlc TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS lsnode_events_to_agent_idx ON events(to_agent);
DROP INDEX IF EXISTS lsnode_events_from_agent_idx;
`

// migrate brings a file of any era to the current schema inside one
// transaction: the Python DDL, the Python migration (added columns,
// backfill of pre-replication rows as authored here), then lsnode's tables.
func migrate(ctx context.Context, db *sql.DB, replica string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // rollback after commit is a no-op
	if _, err := tx.ExecContext(ctx, pythonDDL); err != nil {
		return fmt.Errorf("create python schema: %w", err)
	}
	if err := addMissingColumns(ctx, tx); err != nil {
		return err
	}
	if err := backfillLegacyEvents(ctx, tx, replica); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `
UPDATE artifacts SET origin_replica = ? WHERE origin_replica IS NULL;
CREATE UNIQUE INDEX IF NOT EXISTS events_origin_seq_idx ON events(origin_replica, origin_seq);
CREATE INDEX IF NOT EXISTS events_hlc_idx ON events(hlc);
CREATE INDEX IF NOT EXISTS events_topic_created_idx ON events(topic, created_at);`, replica); err != nil {
		return fmt.Errorf("create replication indexes: %w", err)
	}
	rebuild, err := dropStaleDerived(ctx, tx)
	if err != nil {
		return err
	}
	missing, err := findMissingViews(ctx, tx)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, lsnodeDDL); err != nil {
		return fmt.Errorf("create lsnode tables: %w", err)
	}
	if err := createSearchIndex(ctx, tx); err != nil {
		return err
	}
	if rebuild {
		if err := rebuildOwed(ctx, tx); err != nil {
			return err
		}
	}
	if err := missing.rebuild(ctx, tx); err != nil {
		return err
	}
	if err := createSignatureTables(ctx, tx); err != nil {
		return err
	}
	if err := createArtifactFeed(ctx, tx); err != nil {
		return err
	}
	if err := indexNewEvents(ctx, tx); err != nil {
		return err
	}
	if err := catchUpTxViews(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// dropStaleDerived drops derived tables of an older layout; they are
// functions of the events. An lsnode_owed without correlation_id goes with
// its companions and their watermarks, all rebuilt by indexNewEvents in
// the same migration. An lsnode_owed with a rowid (and its page index), or
// without from_agent, goes with its owed mark: rebuildOwed then re-derives
// its rows from the closures and idempotency keys already held.
func dropStaleDerived(ctx context.Context, tx *sql.Tx) (rebuildOwed bool, err error) {
	var tables int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'lsnode_owed'`).Scan(&tables); err != nil {
		return false, fmt.Errorf("inspect lsnode_owed: %w", err)
	}
	if tables == 0 {
		return false, nil
	}
	has, err := hasColumn(ctx, tx, "lsnode_owed", "correlation_id")
	if err != nil {
		return false, err
	}
	if !has {
		if _, err := tx.ExecContext(ctx, `DROP TABLE lsnode_owed; DROP TABLE IF EXISTS lsnode_closures; DROP TABLE IF EXISTS lsnode_idempotency;
DELETE FROM lsnode_meta WHERE key IN ('indexed_event_rowid', 'indexed_artifact_rowid', '`+owedMarkKey+`');`); err != nil {
			return false, fmt.Errorf("drop stale derived tables: %w", err)
		}
		return false, nil
	}
	var rowidLayout int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'lsnode_owed_page_idx'`).Scan(&rowidLayout); err != nil {
		return false, fmt.Errorf("inspect lsnode_owed: %w", err)
	}
	asker, err := hasColumn(ctx, tx, "lsnode_owed", "from_agent")
	if err != nil {
		return false, err
	}
	if rowidLayout == 0 && asker {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE lsnode_owed; DELETE FROM lsnode_meta WHERE key = '`+owedMarkKey+`'`); err != nil {
		return false, fmt.Errorf("drop lsnode_owed of an earlier layout: %w", err)
	}
	return true, nil
}

// rebuildOwed derives the owed rows of every event indexed before (those
// after the watermark are indexNewEvents' work, since the owed mark goes
// with the table).
func rebuildOwed(ctx context.Context, tx querier) error {
	upTo, err := watermark(ctx, tx, "indexed_event_rowid")
	if err != nil {
		return err
	}
	return indexOwed(ctx, tx, 0, upTo, true)
}

func addMissingColumns(ctx context.Context, tx *sql.Tx) error {
	for _, c := range []struct{ table, column string }{
		{"events", "topic"}, {"events", "origin_replica"}, {"events", "origin_seq"},
		{"events", "hlc"}, {"artifacts", "origin_replica"},
	} {
		has, err := hasColumn(ctx, tx, c.table, c.column)
		if err != nil {
			return err
		}
		if has {
			continue
		}
		typ := "TEXT"
		if c.column == "origin_seq" {
			typ = "INTEGER"
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", c.table, c.column, typ)); err != nil {
			return fmt.Errorf("add column %s.%s: %w", c.table, c.column, err)
		}
	}
	return nil
}

func hasColumn(ctx context.Context, tx *sql.Tx, table, column string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, column).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("inspect %s: %w", table, err)
	}
	return n > 0, nil
}

// backfillLegacyEvents stamps events written before replication existed as
// authored by this replica, exactly as the Python hub does: origin_seq =
// rowid, hlc from created_at and min(rowid, MaxCounter).
func backfillLegacyEvents(ctx context.Context, tx *sql.Tx, replica string) error {
	rows, err := tx.QueryContext(ctx, `SELECT rowid, created_at FROM events WHERE origin_replica IS NULL`)
	if err != nil {
		return fmt.Errorf("scan legacy events: %w", err)
	}
	type legacy struct {
		rowid     int64
		createdAt string
	}
	var todo []legacy
	for rows.Next() {
		var l legacy
		if err := rows.Scan(&l.rowid, &l.createdAt); err != nil {
			rows.Close()
			return fmt.Errorf("scan legacy event: %w", err)
		}
		todo = append(todo, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan legacy events: %w", err)
	}
	for _, l := range todo {
		var ms int64
		if t, err := time.Parse(pytime.UTCLayout, l.createdAt); err == nil {
			ms = t.UnixMilli()
		}
		stamp := hlc.Timestamp{WallMS: ms, Counter: uint32(min(l.rowid, hlc.MaxCounter)), Replica: replica}
		if _, err := tx.ExecContext(ctx, `UPDATE events SET origin_replica = ?, origin_seq = rowid, hlc = ? WHERE rowid = ?`,
			replica, stamp.String(), l.rowid); err != nil {
			return fmt.Errorf("backfill event %d: %w", l.rowid, err)
		}
	}
	return nil
}
