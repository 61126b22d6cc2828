package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)

	"github.com/lsnode/lsnode/hlc"
)

// DBFile is the name of the log database in a data dir (the Python hub's
// LOGSTREAM_DB_FILENAME).
const DBFile = "logstream.sqlite3"

// Store is one replica's copy of the log. It is safe for concurrent use.
type Store struct {
	cfg     Config
	replica string
	clock   *hlc.Clock
	wall    hlc.WallClock
	log     *slog.Logger
	metrics *metrics

	writeDB  *sql.DB       // one connection, used only by the writer goroutine
	writer   *stmtConn     // that connection, with its statement cache
	ckpt     *checkpointer // copies the WAL into the file beside the writer
	lingerer *lingerer     // when the writer waits for more writes; writer goroutine only
	readDB   *sql.DB       // a pool of read connections
	reads    *readStmts    // statements cached on readDB
	tail     *tailCache    // the newest events, for List
	byID     *eventCache   // older events read by id, for Owed

	writes chan *writeReq
	stop   chan struct{}
	done   chan struct{}
	// unindexed counts the items stored since the indexing watermarks were
	// last saved; only the writer goroutine uses it.
	unindexed int
	// owed accounts for the events whose owed rows are not written yet;
	// only the writer goroutine uses it.
	owed owedLag
	// pending lists those events by asker, for Awaiting (pendingasks.go).
	pending pendingAsks
	// searched is the largest committed rowid: every event up to it has
	// its per-transaction views (txviews.go). Only the writer goroutine
	// uses it once Open returns.
	searched int64
	// sizes counts events per stream and keeps the last write times
	// (sizes.go); recovering is set while the own origin is pulled back
	// after a restore (recovery.go).
	sizes      *logSizes
	recovering atomic.Bool
	// feed is the artifact feed's id and top (artifact_feed.go).
	feed *artifactFeed

	mu struct {
		sync.Mutex
		vv      map[string]int64 // committed version vector
		subs    map[*Subscription]struct{}
		watches map[*Watch]struct{} // armed watches (watch.go)
		writers writersSeen         // recent writers per agent name, for the shared-name warning
		closed  bool
	}
	closeOnce sync.Once
	autoCkpt  autoCheckpointHold // snapshots copying (snapshot_ckpt.go)
}

// Open opens (creating if needed) the log in cfg.Dir, migrates a file of
// any era to the current schema, seeds the clock and starts the writer.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	if cfg.Wall == nil {
		cfg.Wall = hlc.SystemClock{}
	}
	if cfg.MaxBatch == 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.CommitLinger == 0 {
		cfg.CommitLinger = DefaultCommitLinger
	}
	if cfg.TailCacheBytes == 0 {
		cfg.TailCacheBytes = DefaultTailCacheBytes
	}
	if cfg.MaxPageBytes == 0 {
		cfg.MaxPageBytes = DefaultMaxPageBytes
	}
	if cfg.TailCacheWarmEvents == 0 {
		cfg.TailCacheWarmEvents = DefaultTailCacheWarmEvents
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	replica := cfg.ReplicaID
	if replica == "" {
		id, err := LoadOrMintReplicaID(cfg.Dir)
		if err != nil {
			return nil, err
		}
		replica = id
	}
	removeStaleSnapshots(cfg.Dir)
	recovering, err := loadRecovery(cfg.Dir, replica)
	if err != nil {
		return nil, err
	}
	s := &Store{
		cfg:      cfg,
		replica:  replica,
		wall:     cfg.Wall,
		log:      cfg.Logger.With("component", "store"),
		metrics:  newMetrics(cfg.Metrics),
		writes:   make(chan *writeReq, cfg.MaxBatch),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		tail:     newTailCache(cfg.TailCacheBytes),
		lingerer: newLingerer(cfg.CommitLinger),
		byID:     newEventCache(max(cfg.TailCacheBytes, 0) / 4),
	}
	s.recovering.Store(recovering)
	if err := s.openDBs(ctx); err != nil {
		return nil, err
	}
	err = s.load(ctx)
	if err == nil {
		err = s.warmTail(ctx, s.mu.vv)
	}
	if err == nil {
		s.sizes, err = loadLogSizes(ctx, s.readDB, s.replica)
	}
	if err != nil {
		s.writer.Close()
		s.writeDB.Close()
		s.readDB.Close()
		s.ckpt.db.Close()
		return nil, err
	}
	s.registerSizeGauges(cfg.Metrics)
	s.registerSizeDetailGauges(cfg.Metrics)
	go s.ckpt.run()
	go s.runWriter()
	return s, nil
}

// WriterDSN is the DSN the store's writer connection opens the file at
// path with. Benchmarks that hold the store to the machine's raw insert
// rate open their raw file with it, so that both sides write with the same
// pragmas. It sets WAL, synchronous NORMAL (or
// FULL), a 32 MiB page cache, an automatic checkpoint every 32768 WAL
// pages, 128 MiB (which finds most of them copied already by the
// checkpointer; the larger the WAL between checkpoints, the more often a
// page rewritten by many commits is copied once).
// With a 64 MiB cache a 1M-event catch-up peaked at 259 MiB resident, with
// 32 MiB at 194 MiB, at the same rate.
// temp_store stays at its default: a statement journal (the owed rows'
// INSERT ... SELECT keeps one) then takes 64 KiB chunks that spill to a
// file only past that size, where temp_store=MEMORY grows it 1 KiB at a
// time (about 5 % of the writer's time in an append profile).
func WriterDSN(path string, syncFull bool) string {
	syncMode := "NORMAL"
	if syncFull {
		syncMode = "FULL"
	}
	return fmt.Sprintf("file:%s?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(%s)&_pragma=foreign_keys(0)&_pragma=cache_size(-32768)&_pragma=wal_autocheckpoint(%d)", path, syncMode, autoCheckpointPages)
}

// autoCheckpointPages is the writer's automatic checkpoint threshold in
// WAL pages (WriterDSN); a snapshot turns it off while it copies
// (snapshot_ckpt.go).
const autoCheckpointPages = 32768

func (s *Store) openDBs(ctx context.Context) error {
	path := filepath.Join(s.cfg.Dir, DBFile)
	w, err := sql.Open("sqlite", WriterDSN(path, s.cfg.SyncFull))
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := migrate(ctx, w, s.replica); err != nil {
		w.Close()
		return fmt.Errorf("migrate %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", fmt.Sprintf("file:%s?_pragma=busy_timeout(10000)&_pragma=query_only(1)&_pragma=mmap_size(1099511627776)", path))
	if err != nil {
		w.Close()
		return fmt.Errorf("open %s for reading: %w", path, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	conn, err := newStmtConn(ctx, w)
	if err != nil {
		w.Close()
		r.Close()
		return err
	}
	ckpt, err := newCheckpointer(path, func(err error) { s.log.Warn("background checkpoint", "err", err) })
	if err != nil {
		conn.Close()
		w.Close()
		r.Close()
		return err
	}
	s.writeDB, s.readDB, s.writer, s.ckpt = w, r, conn, ckpt
	s.reads = newReadStmts(r)
	return nil
}

// load reads the version vector and seeds the clock from the stored
// stamps: our own newest stamp unconditionally (never issue at or below a
// stamp we issued), others' only within the skew bound.
func (s *Store) load(ctx context.Context) error {
	vv, err := queryVersionVector(ctx, s.readDB)
	if err != nil {
		return err
	}
	s.clock = hlc.NewClock(s.wall, s.replica, s.cfg.MaxClockOffset)
	var own, other sql.NullString
	if err := s.readDB.QueryRowContext(ctx, `SELECT max(hlc) FROM events WHERE origin_replica = ?`, s.replica).Scan(&own); err != nil {
		return fmt.Errorf("read own newest stamp: %w", err)
	}
	if err := s.readDB.QueryRowContext(ctx, `SELECT max(hlc) FROM events WHERE origin_replica != ?`, s.replica).Scan(&other); err != nil {
		return fmt.Errorf("read newest stamp: %w", err)
	}
	if ts, err := hlc.Parse(own.String); own.Valid && err == nil {
		s.clock.SeedOwn(ts)
	}
	if ts, err := hlc.Parse(other.String); other.Valid && err == nil {
		s.clock.Observe(ts)
	}
	if err := s.loadOwedLag(ctx); err != nil {
		return err
	}
	if err := s.readDB.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM events`).Scan(&s.searched); err != nil {
		return fmt.Errorf("read newest rowid: %w", err)
	}
	if s.feed, err = loadArtifactFeed(ctx, s.readDB); err != nil {
		return err
	}
	writers, err := loadWritersSeen(ctx, s.readDB, s.wall.Now().Add(-sharedNameWindow).UnixMilli())
	if err != nil {
		return err
	}
	s.mu.vv = vv
	s.mu.writers = writers
	s.mu.subs = make(map[*Subscription]struct{})
	s.mu.watches = make(map[*Watch]struct{})
	s.metrics.origins.Set(float64(len(vv)))
	return nil
}

func queryVersionVector(ctx context.Context, db *sql.DB) (map[string]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT origin_replica, max(top) FROM (
  SELECT origin_replica, max(origin_seq) AS top FROM events WHERE origin_replica IS NOT NULL GROUP BY origin_replica
  UNION ALL
  SELECT origin_replica, max(origin_seq) FROM lsnode_quarantine WHERE advanced = 1 AND origin_replica IS NOT NULL GROUP BY origin_replica)
GROUP BY origin_replica`)
	if err != nil {
		return nil, fmt.Errorf("read version vector: %w", err)
	}
	defer rows.Close()
	vv := make(map[string]int64)
	for rows.Next() {
		var origin string
		var top int64
		if err := rows.Scan(&origin, &top); err != nil {
			return nil, fmt.Errorf("read version vector: %w", err)
		}
		vv[origin] = top
	}
	return vv, rows.Err()
}

// Close stops the writer after the writes already queued, closes every
// subscription and closes the database.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.mu.closed = true
		s.mu.Unlock()
		close(s.stop)
		<-s.done
		ckptErr := s.ckpt.close()
		s.mu.Lock()
		for sub := range s.mu.subs {
			sub.closeLocked()
		}
		s.mu.subs = nil
		for w := range s.mu.watches {
			w.fire()
		}
		s.mu.watches = nil
		s.mu.Unlock()
		err = errors.Join(ckptErr, s.writer.Close(), s.reads.close(), s.readDB.Close(), s.writeDB.Close())
	})
	return err
}

// ReplicaID is this replica's identity.
func (s *Store) ReplicaID() string { return s.replica }

// Clock is the store's hybrid logical clock.
func (s *Store) Clock() *hlc.Clock { return s.clock }

// VersionVector returns a copy of the committed version vector.
func (s *Store) VersionVector() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(s.mu.vv))
	for k, v := range s.mu.vv {
		out[k] = v
	}
	return out
}
