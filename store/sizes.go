package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
)

// Sizes are what the log occupies and when it was last written, for
// status pages and gauges (docs/operations.md, "Retention").
type Sizes struct {
	DatabaseBytes int64 // logstream.sqlite3
	WALBytes      int64 // logstream.sqlite3-wal
	ArtifactBytes int64 // sum of the artifacts' size_bytes
	// StreamEvents counts the events held per stream.
	StreamEvents map[string]int64
	// LastCommit is when this process last committed an op, local or
	// replicated; until its first, the HLC time of the newest op held
	// (seeded at open, so a restarted idle node still says when its log
	// last changed); zero for an empty log. The database file's mtime
	// says nothing of this: in WAL mode commits go to the -wal file.
	LastCommit time.Time
	// LastLocalWrite is the HLC time of the newest op of this node's own
	// origin held; zero when it has written none.
	LastLocalWrite time.Time
}

// logSizes keeps the per-stream event counts and the last write times up
// to date from the writer's commits, so that reading them scans nothing.
type logSizes struct {
	mu         sync.Mutex
	streams    map[string]int64
	lastCommit time.Time
	lastLocal  time.Time
}

// loadLogSizes counts the events per stream (one pass over the stream
// index) and finds the newest op and the newest own op, at open, before
// the writer runs.
func loadLogSizes(ctx context.Context, db *sql.DB, replica string) (*logSizes, error) {
	z := &logSizes{streams: map[string]int64{}}
	rows, err := db.QueryContext(ctx, `SELECT stream, count(*) FROM events GROUP BY stream`)
	if err != nil {
		return nil, fmt.Errorf("count events per stream: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var stream string
		var n int64
		if err := rows.Scan(&stream, &n); err != nil {
			return nil, fmt.Errorf("count events per stream: %w", err)
		}
		z.streams[stream] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count events per stream: %w", err)
	}
	var own sql.NullString
	err = db.QueryRowContext(ctx, `SELECT hlc FROM events WHERE origin_replica = ? ORDER BY origin_seq DESC LIMIT 1`, replica).Scan(&own)
	if err != nil && err != sql.ErrNoRows {
		return nil, fmt.Errorf("read newest own op: %w", err)
	}
	if ts, err := hlc.Parse(own.String); own.Valid && err == nil {
		z.lastLocal = time.UnixMilli(ts.WallMS).UTC()
	}
	var newest sql.NullString // stamps sort as text (hlc.Timestamp.String)
	if err := db.QueryRowContext(ctx, `SELECT max(hlc) FROM events`).Scan(&newest); err != nil {
		return nil, fmt.Errorf("read newest op: %w", err)
	}
	if ts, err := hlc.Parse(newest.String); newest.Valid && err == nil {
		z.lastCommit = time.UnixMilli(ts.WallMS).UTC()
	}
	return z, nil
}

// committed counts the ops of a commit made at now (writer goroutine).
func (z *logSizes) committed(ops []Op, replica string, now time.Time) {
	if len(ops) == 0 {
		return
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	z.lastCommit = now
	for _, op := range ops {
		z.streams[op.Event.Stream]++
		if op.Event.OriginReplica != replica {
			continue
		}
		if ts, err := hlc.Parse(op.Event.HLC); err == nil {
			z.lastLocal = time.UnixMilli(ts.WallMS).UTC()
		}
	}
}

func (z *logSizes) snapshot(out *Sizes) {
	z.mu.Lock()
	defer z.mu.Unlock()
	out.StreamEvents = maps.Clone(z.streams)
	out.LastCommit, out.LastLocalWrite = z.lastCommit, z.lastLocal
}

// Sizes returns the log's sizes and last write times.
func (s *Store) Sizes(ctx context.Context) (Sizes, error) {
	var out Sizes
	if err := s.readDB.QueryRowContext(ctx, `SELECT coalesce(sum(size_bytes), 0) FROM artifacts`).Scan(&out.ArtifactBytes); err != nil {
		return out, fmt.Errorf("sum artifact sizes: %w", err)
	}
	out.DatabaseBytes, out.WALBytes = s.fileSize(DBFile), s.fileSize(DBFile+"-wal")
	s.sizes.snapshot(&out)
	return out, nil
}

// fileSize is the size of a file of the data dir, 0 when it is absent.
func (s *Store) fileSize(name string) int64 {
	if fi, err := os.Stat(filepath.Join(s.cfg.Dir, name)); err == nil {
		return fi.Size()
	}
	return 0
}

// registerSizeDetailGauges exports Sizes, read at scrape time.
func (s *Store) registerSizeDetailGauges(reg prometheus.Registerer) {
	if reg == nil {
		return
	}
	reg.MustRegister(sizeCollector{s})
}

var (
	databaseBytesDesc = prometheus.NewDesc("lsnode_store_database_bytes", "Size of the log database file (logstream.sqlite3).", nil, nil)
	walBytesDesc      = prometheus.NewDesc("lsnode_store_wal_bytes", "Size of the log's write-ahead log (logstream.sqlite3-wal); it stays large while a long read (a backup) holds back checkpoints.", nil, nil)
	artifactBytesDesc = prometheus.NewDesc("lsnode_store_artifact_bytes", "Bytes of artifact content held (sum of size_bytes).", nil, nil)
	streamEventsDesc  = prometheus.NewDesc("lsnode_store_stream_events", "Events held per stream, for the 100 streams that hold most (lsnode_store_stream_events_other counts the rest).", []string{"stream"}, nil)
	streamOtherDesc   = prometheus.NewDesc("lsnode_store_stream_events_other", "Events held in the streams beyond the 100 that lsnode_store_stream_events names.", nil, nil)
	streamsDesc       = prometheus.NewDesc("lsnode_store_streams", "Streams the log holds events of.", nil, nil)
	lastCommitDesc    = prometheus.NewDesc("lsnode_store_last_commit_timestamp_seconds", "Unix time of the latest commit of an op, local or replicated; before this process's first, the HLC time of the newest op held; 0 for an empty log.", nil, nil)
	lastLocalDesc     = prometheus.NewDesc("lsnode_store_last_local_write_timestamp_seconds", "Unix time (HLC) of the newest op of this node's own origin; 0 when it has written none.", nil, nil)
)

// sizeCollector reads Sizes once per scrape for all of its series.
type sizeCollector struct{ s *Store }

func (c sizeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{databaseBytesDesc, walBytesDesc, artifactBytesDesc, streamEventsDesc, streamOtherDesc, streamsDesc, lastCommitDesc, lastLocalDesc} {
		ch <- d
	}
}

func (c sizeCollector) Collect(ch chan<- prometheus.Metric) {
	z, err := c.s.Sizes(context.Background())
	artifacts := float64(z.ArtifactBytes)
	if err != nil {
		artifacts = math.NaN()
	}
	ch <- prometheus.MustNewConstMetric(databaseBytesDesc, prometheus.GaugeValue, float64(z.DatabaseBytes))
	ch <- prometheus.MustNewConstMetric(walBytesDesc, prometheus.GaugeValue, float64(z.WALBytes))
	ch <- prometheus.MustNewConstMetric(artifactBytesDesc, prometheus.GaugeValue, artifacts)
	named, other := largestStreams(z.StreamEvents, maxStreamSeries)
	for _, stream := range named {
		ch <- prometheus.MustNewConstMetric(streamEventsDesc, prometheus.GaugeValue, float64(z.StreamEvents[stream]), stream)
	}
	ch <- prometheus.MustNewConstMetric(streamOtherDesc, prometheus.GaugeValue, float64(other))
	ch <- prometheus.MustNewConstMetric(streamsDesc, prometheus.GaugeValue, float64(len(z.StreamEvents)))
	ch <- prometheus.MustNewConstMetric(lastCommitDesc, prometheus.GaugeValue, unixSeconds(z.LastCommit))
	ch <- prometheus.MustNewConstMetric(lastLocalDesc, prometheus.GaugeValue, unixSeconds(z.LastLocalWrite))
}

// maxStreamSeries bounds the series of lsnode_store_stream_events: a
// fleet that opens a stream per task would otherwise grow one series per
// stream without end.
const maxStreamSeries = 100

// largestStreams returns the (at most) n streams holding most events,
// ties by name, and the events held by all the others.
func largestStreams(counts map[string]int64, n int) (named []string, other int64) {
	named = slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), strings.Compare(a, b))
	})
	if len(named) <= n {
		return named, 0
	}
	for _, stream := range named[n:] {
		other += counts[stream]
	}
	return named[:n], other
}

func unixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixMilli()) / 1000
}
