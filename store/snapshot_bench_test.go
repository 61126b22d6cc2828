package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"modernc.org/sqlite"
)

// BenchmarkSnapshot copies the big log (LSNODE_BENCH_EVENTS, default 1M)
// while appends run at LSNODE_BENCH_PACE appends/s (default 200): by the
// page copy (method=pagecopy, what Snapshot does: on a niced thread, with
// the writer's automatic checkpoint off meanwhile), by the same copy on
// the caller's thread with the automatic checkpoint left on
// (method=pagecopy_autocheckpoint), and, with it off, by SQLite's online
// backup in one step (method=backup) and by VACUUM INTO
// (method=vacuum_into); the same appends with no copy for as long as the
// page copy took (method=none) are the same run's baseline. One op is one copy (run with -benchtime=1x).
// It reports the copy's seconds, the process's CPU seconds meanwhile
// (the appends' included), the p99 and the longest append while the copy
// ran, and for the copies whether every event kept its rowid (1) or
// not (0): the local seq and the signatures refer to it.
func BenchmarkSnapshot(b *testing.B) {
	rate := 200
	if n, err := strconv.Atoi(os.Getenv("LSNODE_BENCH_PACE")); err == nil && n > 0 {
		rate = n
	}
	var noneFor time.Duration
	for _, method := range []string{"pagecopy", "pagecopy_autocheckpoint", "backup", "vacuum_into", "none"} {
		b.Run("method="+method, func(b *testing.B) {
			s := bigLogCopy(b)
			for range b.N {
				dst := filepath.Join(b.TempDir(), "copy.sqlite3")
				copyOnce := func() time.Duration {
					start := time.Now()
					var err error
					src := filepath.Join(s.cfg.Dir, DBFile)
					switch method {
					case "pagecopy":
						err = s.copyLive(context.Background(), src, dst)
					case "pagecopy_autocheckpoint":
						err = copyPagesToFile(context.Background(), src, dst)
					case "backup":
						err = s.withAutoCheckpointOff(context.Background(), func() error { return backupInto(context.Background(), src, dst) })
					case "vacuum_into":
						err = s.withAutoCheckpointOff(context.Background(), func() error { return vacuumInto(src, dst) })
					case "none":
						time.Sleep(noneFor)
					}
					if err != nil {
						b.Fatal(err)
					}
					return time.Since(start)
				}
				// The same appends first run alone for a while: the work a
				// store starts at open (warming its caches and views) is
				// over before the copy starts.
				appendsDuring(b, s, rate, func() time.Duration { time.Sleep(benchWarmup); return benchWarmup })
				cpu0 := processCPU(b)
				took, lat := appendsDuring(b, s, rate, copyOnce)
				b.ReportMetric((processCPU(b) - cpu0).Seconds(), "cpu-s")
				if method == "pagecopy" {
					noneFor = took
				}
				b.ReportMetric(took.Seconds(), "copy-s")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "append-p99-ms")
				b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "append-max-ms")
				if method != "none" {
					b.ReportMetric(rowidsKept(b, s, dst), "rowids-kept")
				}
			}
		})
	}
}

// backupInto copies the database at src over the file dst with SQLite's
// online backup API, all pages in one step: a stepped backup starts over
// whenever another connection writes.
func backupInto(ctx context.Context, src, dst string) error {
	db, err := sql.Open("sqlite", fmt.Sprintf("file:%s?_pragma=busy_timeout(10000)", src))
	if err != nil {
		return fmt.Errorf("open %s for a snapshot: %w", src, err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open %s for a snapshot: %w", src, err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		b, ok := dc.(interface {
			NewBackup(string) (*sqlite.Backup, error)
		})
		if !ok {
			return errors.New("snapshot: the SQLite driver has no online backup")
		}
		bk, err := b.NewBackup("file:" + dst)
		if err != nil {
			return fmt.Errorf("start snapshot: %w", err)
		}
		for more := true; more && err == nil; {
			more, err = bk.Step(-1)
		}
		if ferr := bk.Finish(); err == nil {
			err = ferr
		}
		if err != nil {
			return fmt.Errorf("snapshot: %w", err)
		}
		return nil
	})
}

// benchWarmup is how long BenchmarkSnapshot's appends run before each
// copy.
const benchWarmup = 5 * time.Second

// vacuumInto copies the database at src to dst with VACUUM INTO, on a
// connection of its own.
func vacuumInto(src, dst string) error {
	db, err := openFile(src)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(`VACUUM INTO ?`, dst)
	return err
}

// bigLogCopy opens a copy of the big log that the benchmark may write.
func bigLogCopy(b *testing.B) *Store {
	if err := bigLog(b, 0).Close(); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := copyPagesToFile(context.Background(), filepath.Join(bigLogDir(), DBFile), filepath.Join(dir, DBFile)); err != nil {
		b.Fatal(err)
	}
	s, err := Open(context.Background(), Config{Dir: dir, ReplicaID: repA})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// appendsDuring appends at rate on s while work runs, and returns work's
// duration and the sorted latencies of the appends started meanwhile.
func appendsDuring(b *testing.B, s *Store, rate int, work func() time.Duration) (time.Duration, []time.Duration) {
	stop := make(chan struct{})
	var (
		mu  sync.Mutex
		lat []time.Duration
		wg  sync.WaitGroup
	)
	wg.Go(func() {
		interval := time.Second / time.Duration(rate)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		var inner sync.WaitGroup
		defer inner.Wait()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			inner.Go(func() {
				t0 := time.Now()
				_, err := s.Append(context.Background(), AppendInput{Type: "note", Stream: "project/x", Room: "r",
					FromAgent: fmt.Sprintf("agent-%d", i%3), Body: "during a copy"})
				d := time.Since(t0)
				if err != nil {
					b.Error(err)
				}
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			})
		}
	})
	took := work()
	close(stop)
	wg.Wait()
	slices.Sort(lat)
	if len(lat) == 0 {
		lat = []time.Duration{0}
	}
	return took, lat
}

// rowidsKept compares the (rowid, id) pairs of the copy at dst with the
// source's, row by row up to the copy's newest rowid.
func rowidsKept(b *testing.B, s *Store, dst string) float64 {
	db, err := openFile(dst)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var top int64
	if err := db.QueryRow(`SELECT coalesce(max(rowid), 0) FROM events`).Scan(&top); err != nil {
		b.Fatal(err)
	}
	const pairs = `SELECT rowid, id FROM events WHERE rowid <= ? ORDER BY rowid`
	copied, err := db.Query(pairs, top)
	if err != nil {
		b.Fatal(err)
	}
	defer copied.Close()
	held, err := s.readDB.Query(pairs, top)
	if err != nil {
		b.Fatal(err)
	}
	defer held.Close()
	for {
		c, h := copied.Next(), held.Next()
		if c != h {
			return 0
		}
		if !c {
			return 1
		}
		var r1, r2 int64
		var id1, id2 string
		if err := copied.Scan(&r1, &id1); err != nil {
			b.Fatal(err)
		}
		if err := held.Scan(&r2, &id2); err != nil {
			b.Fatal(err)
		}
		if r1 != r2 || id1 != id2 {
			return 0
		}
	}
}
