package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// rawRowsPerTxn is the size of the raw benchmarks' transactions.
const rawRowsPerTxn = 1000

// rawBenchDB is the machine's SQLite limit that the write benchmarks are
// held to: bare transactions of rawRowsPerTxn rows into a fresh file with
// the store's schema and indexes, one single-row INSERT prepared once, the
// writer's DSN (same pragmas and page cache).
type rawBenchDB struct {
	db     *sql.DB
	insert *sql.Stmt // prepared once, as the writer's statements are
	perTxn int
	// afterRow, when set, runs after each row's insert in its transaction,
	// and beforeCommit before each commit, given the largest rowid before
	// the transaction: the benchmarks of extra write work use them.
	afterRow     func(tx *sql.Tx, rowid int64, e Event) error
	beforeCommit func(tx *sql.Tx, before int64) error
}

func openRawBenchDB(b *testing.B) *rawBenchDB { return openRawBenchDBTxn(b, rawRowsPerTxn) }

// openRawBenchDBTxn is openRawBenchDB with perTxn rows a transaction.
func openRawBenchDBTxn(b *testing.B, perTxn int) *rawBenchDB {
	db, err := sql.Open("sqlite", WriterDSN(filepath.Join(b.TempDir(), DBFile), false))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, ddl := range []string{pythonDDL, `CREATE UNIQUE INDEX events_origin_seq_idx ON events(origin_replica, origin_seq);
CREATE INDEX events_hlc_idx ON events(hlc); CREATE INDEX events_topic_created_idx ON events(topic, created_at);`, lsnodeDDL} {
		if _, err := db.Exec(ddl); err != nil {
			b.Fatal(err)
		}
	}
	st, err := db.Prepare(`INSERT INTO events (id, type, stream, room, topic, from_agent, to_agent,
correlation_id, branch, base_commit, status, body, created_at, metadata_json, origin_replica, origin_seq, hlc)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	return &rawBenchDB{db: db, insert: st, perTxn: perTxn}
}

// write writes evs in transactions of perTxn rows and returns the
// wall and CPU time it took.
func (r *rawBenchDB) write(b *testing.B, evs []Event) (elapsed, cpu time.Duration) {
	t0, cpu0 := time.Now(), processCPU(b)
	for len(evs) > 0 {
		n := min(r.perTxn, len(evs))
		tx, err := r.db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		st := tx.Stmt(r.insert)
		before := int64(-1)
		for _, e := range evs[:n] {
			res, err := st.Exec(e.ID, e.Type, e.Stream, e.Room, nullable(e.Topic), e.FromAgent, nullable(e.ToAgent),
				nullable(e.CorrelationID), nullable(e.Branch), nullable(e.BaseCommit), nullable(e.Status),
				e.Body, e.CreatedAt, string(e.Metadata), e.OriginReplica, e.OriginSeq, e.HLC)
			if err != nil {
				b.Fatal(err)
			}
			if r.afterRow == nil && (r.beforeCommit == nil || before >= 0) {
				continue
			}
			rowid, err := res.LastInsertId()
			if err == nil && r.afterRow != nil {
				err = r.afterRow(tx, rowid, e)
			}
			if err != nil {
				b.Fatal(err)
			}
			if before < 0 {
				before = rowid - 1
			}
		}
		st.Close()
		if r.beforeCommit != nil {
			if err := r.beforeCommit(tx, before); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		evs = evs[n:]
	}
	return time.Since(t0), processCPU(b) - cpu0
}

// uniformRows makes the rows of BenchmarkRawInsert's rows=uniform: one
// shape repeated, so that every index grows at its end, as appends do.
func uniformRows() func(n int) []Event {
	wall := testClockStart
	clock := hlc.NewClock(hlc.NewManualClock(wall), repA, 0)
	seq := 0
	return func(n int) []Event {
		evs := make([]Event, n)
		for i := range evs {
			seq++
			evs[i] = Event{ID: newID("evt", wall), Type: "note", Stream: "project/x", Room: "r", FromAgent: "agent-1",
				ToAgent: "agent-2", Status: "open", Body: "body", CreatedAt: createdAt(wall), Metadata: []byte("{}"),
				OriginReplica: repA, OriginSeq: int64(seq), HLC: clock.Tick().String()}
		}
		return evs
	}
}

// appendFrom makes n appends from workers goroutines (note events from
// agent-<worker> to agent-0) and returns the time they took.
func appendFrom(b *testing.B, s *Store, workers, n int) time.Duration {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	start := time.Now()
	for w := 0; w < workers; w++ {
		mine := n / workers
		if w < n%workers {
			mine++
		}
		wg.Add(1)
		from := fmt.Sprintf("agent-%d", w)
		go func() {
			defer wg.Done()
			for i := 0; i < mine; i++ {
				if _, err := s.Append(ctx, AppendInput{Type: "note", Stream: "project/x", Room: "r",
					FromAgent: from, ToAgent: "agent-0", Status: "open", Body: "body"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	return elapsed
}
