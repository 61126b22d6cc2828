package store

import (
	"context"
	"database/sql"
	"sync"
)

// maxReadStatements bounds the read statement cache; queries beyond it
// (rare filter combinations, long IN lists) run unprepared.
const maxReadStatements = 256

// readStmts caches statements prepared on the read pool. database/sql
// keeps one prepared copy per connection and reuses it, inside a read
// transaction too (Tx.StmtContext), so a hot read is parsed once per
// connection instead of once per call; parsing was a third of a List.
type readStmts struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func newReadStmts(db *sql.DB) *readStmts {
	return &readStmts{db: db, m: map[string]*sql.Stmt{}}
}

// get returns the cached statement for query, preparing it on first use;
// nil when the cache is full or preparing fails (the caller then runs the
// query unprepared and reports its error).
func (r *readStmts) get(ctx context.Context, query string) *sql.Stmt {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st, ok := r.m[query]; ok {
		return st
	}
	if len(r.m) >= maxReadStatements {
		return nil
	}
	st, err := r.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	r.m[query] = st
	return st
}

// close closes every cached statement.
func (r *readStmts) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var first error
	for q, st := range r.m {
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
		delete(r.m, q)
	}
	return first
}

// pool is a querier over the read pool using cached statements.
func (r *readStmts) pool() readQ { return readQ{c: r} }

// in is a querier over one read transaction using cached statements.
func (r *readStmts) in(tx *sql.Tx) readQ { return readQ{c: r, tx: tx} }

// readQ runs queries through the read statement cache, on the pool or in
// one transaction.
type readQ struct {
	c  *readStmts
	tx *sql.Tx
}

var _ querier = readQ{}

func (q readQ) stmt(ctx context.Context, query string) *sql.Stmt {
	st := q.c.get(ctx, query)
	if st != nil && q.tx != nil {
		st = q.tx.StmtContext(ctx, st) // closed with the transaction
	}
	return st
}

func (q readQ) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	if q.tx != nil {
		return q.tx.QueryContext(ctx, query, args...)
	}
	return q.c.db.QueryContext(ctx, query, args...)
}

func (q readQ) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := q.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	if q.tx != nil {
		return q.tx.QueryRowContext(ctx, query, args...)
	}
	return q.c.db.QueryRowContext(ctx, query, args...)
}

// ExecContext is not cached: reads do not execute statements.
func (q readQ) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if q.tx != nil {
		return q.tx.ExecContext(ctx, query, args...)
	}
	return q.c.db.ExecContext(ctx, query, args...)
}
