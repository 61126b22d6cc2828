package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// The artifact feed numbers every artifact this node holds in the order
// it arrived here (local put, remote batch, Python hub pull), so that a
// peer can ask for the artifacts after a position and replicate them
// without waiting for an event to name them (sync: the artifact feed,
// docs/architecture.md#artifacts). It is lsnode's and node-local: the
// Python hub neither reads nor writes it, and a restore or a seed from a
// snapshot empties it (NodeLocalTables), so it is numbered again, under a
// new feed id, when the file next opens. A peer whose position names
// another feed id reads the feed from the start.
//
// lsnode_artifact_cursors holds, per peer replica, how far into that
// peer's feed this file's artifacts go: every artifact of the feed up to
// seq is held here or was refused (quarantined). A cursor is written
// only after the artifacts it covers are stored, so any copy of the file
// says true of itself and the table travels with a snapshot.
//
// An entry costs one row at the end of one b-tree: seq is the rowid (a
// seq can come again only once the feed is emptied, and then under a new
// feed id), and no index is kept on artifact_id, since an artifact gets
// its entry in the transaction that stores it, once.
const artifactFeedDDL = `
CREATE TABLE IF NOT EXISTS lsnode_artifact_feed (
    seq INTEGER PRIMARY KEY,
    artifact_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS lsnode_artifact_feed_id (
    feed_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS lsnode_artifact_cursors (
    peer TEXT PRIMARY KEY,
    feed_id TEXT NOT NULL,
    seq INTEGER NOT NULL
) WITHOUT ROWID;
`

// FeedEntry is one artifact of the feed, without its content.
type FeedEntry struct {
	Seq           int64
	ID            string
	SizeBytes     int64
	OriginReplica string
}

// FeedCursor is how far into peer's artifact feed (FeedID) this node's
// artifacts go: every entry up to Seq is held or was refused.
type FeedCursor struct {
	Peer   string
	FeedID string
	Seq    int64
}

// artifactFeed is the feed's state in memory: its id and committed top,
// and the channel closed at the next commit that adds entries.
type artifactFeed struct {
	id string
	mu struct {
		sync.Mutex
		top  int64
		wake chan struct{}
	}
}

// createArtifactFeed creates the feed's tables, starts a new feed (a new
// id, no entries) when the file has none, and numbers the artifacts that
// have no entry: every one of a file from before the feed or whose feed
// was emptied, in rowid order (the order they were stored in), and those
// a Python hub stored since lsnode last wrote the file. Comparing the two
// counts (each read from an index) spares a scan of the artifacts on
// every open.
func createArtifactFeed(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, artifactFeedDDL); err != nil {
		return fmt.Errorf("create artifact feed: %w", err)
	}
	var id string
	err := tx.QueryRowContext(ctx, `SELECT feed_id FROM lsnode_artifact_feed_id`).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lsnode_artifact_feed`); err != nil {
			return fmt.Errorf("start artifact feed: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO lsnode_artifact_feed_id (feed_id) VALUES (?)`, rand.Text()); err != nil {
			return fmt.Errorf("start artifact feed: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("read artifact feed id: %w", err)
	}
	var held, numbered int64
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM artifacts), (SELECT count(*) FROM lsnode_artifact_feed)`).Scan(&held, &numbered); err != nil {
		return fmt.Errorf("count artifact feed: %w", err)
	}
	if held == numbered {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO lsnode_artifact_feed (artifact_id)
SELECT id FROM artifacts WHERE id NOT IN (SELECT artifact_id FROM lsnode_artifact_feed) ORDER BY rowid`); err != nil {
		return fmt.Errorf("number artifacts in the feed: %w", err)
	}
	return nil
}

// loadArtifactFeed reads the feed's id and top.
func loadArtifactFeed(ctx context.Context, q querier) (*artifactFeed, error) {
	f := &artifactFeed{}
	if err := q.QueryRowContext(ctx, `SELECT feed_id, (SELECT coalesce(max(seq), 0) FROM lsnode_artifact_feed) FROM lsnode_artifact_feed_id`).
		Scan(&f.id, &f.mu.top); err != nil {
		return nil, fmt.Errorf("read artifact feed: %w", err)
	}
	return f, nil
}

// feedArtifact gives an artifact just inserted its feed entry.
func (w *writeTx) feedArtifact(id string) error {
	res, err := w.tx.ExecContext(w.ctx, `INSERT INTO lsnode_artifact_feed (artifact_id) VALUES (?)`, id)
	if err == nil {
		w.feedTop, err = res.LastInsertId()
	}
	if err != nil {
		return fmt.Errorf("number artifact %s in the feed: %w", id, err)
	}
	return nil
}

// storeFeedCursor raises peer's cursor, or replaces it when it names
// another feed (the peer's feed was numbered again).
func storeFeedCursor(w *writeTx, c FeedCursor) error {
	if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO lsnode_artifact_cursors (peer, feed_id, seq) VALUES (?, ?, ?)
ON CONFLICT (peer) DO UPDATE SET seq = CASE WHEN feed_id = excluded.feed_id THEN max(seq, excluded.seq) ELSE excluded.seq END,
feed_id = excluded.feed_id`, c.Peer, c.FeedID, c.Seq); err != nil {
		return fmt.Errorf("store artifact cursor of %s: %w", c.Peer, err)
	}
	return nil
}

// committed makes entries up to top visible and wakes ArtifactsAdded.
func (f *artifactFeed) committed(top int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if top <= f.mu.top {
		return
	}
	f.mu.top = top
	if f.mu.wake != nil {
		close(f.mu.wake)
		f.mu.wake = nil
	}
}

// ArtifactFeedID is the id of this node's artifact feed, made when the
// feed was started.
func (s *Store) ArtifactFeedID() string { return s.feed.id }

// ArtifactFeedTop is the seq of the newest committed feed entry (0 when
// the feed is empty).
func (s *Store) ArtifactFeedTop() int64 {
	s.feed.mu.Lock()
	defer s.feed.mu.Unlock()
	return s.feed.mu.top
}

// ArtifactsAdded returns a channel closed at the next commit that adds
// feed entries. Take it before reading the top, so that no commit in
// between is missed.
func (s *Store) ArtifactsAdded() <-chan struct{} {
	s.feed.mu.Lock()
	defer s.feed.mu.Unlock()
	if s.feed.mu.wake == nil {
		s.feed.mu.wake = make(chan struct{})
	}
	return s.feed.mu.wake
}

// ArtifactFeedAfter returns the feed entries after seq after, oldest
// first, at most limit.
func (s *Store) ArtifactFeedAfter(ctx context.Context, after int64, limit int) ([]FeedEntry, error) {
	if after < 0 || limit < 1 {
		return nil, invalidf("artifact feed read after %d, limit %d", after, limit)
	}
	rows, err := s.reads.pool().QueryContext(ctx, `SELECT f.seq, a.id, a.size_bytes, coalesce(a.origin_replica, '')
FROM lsnode_artifact_feed f JOIN artifacts a ON a.id = f.artifact_id WHERE f.seq > ? ORDER BY f.seq LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("read artifact feed: %w", err)
	}
	defer rows.Close()
	var out []FeedEntry
	for rows.Next() {
		var e FeedEntry
		if err := rows.Scan(&e.Seq, &e.ID, &e.SizeBytes, &e.OriginReplica); err != nil {
			return nil, fmt.Errorf("read artifact feed: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read artifact feed: %w", err)
	}
	return out, nil
}

// ArtifactCursor returns how far into peer's feed this node's artifacts
// go; a zero cursor (no feed id) when none is stored.
func (s *Store) ArtifactCursor(ctx context.Context, peer string) (FeedCursor, error) {
	c := FeedCursor{Peer: peer}
	err := s.reads.pool().QueryRowContext(ctx, `SELECT feed_id, seq FROM lsnode_artifact_cursors WHERE peer = ?`, peer).Scan(&c.FeedID, &c.Seq)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("read artifact cursor of %s: %w", peer, err)
	}
	return c, nil
}
