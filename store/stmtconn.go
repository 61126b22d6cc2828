package store

import (
	"context"
	"database/sql"
	"fmt"
)

// maxCachedStatements bounds the writer's statement cache; queries built
// with variable-length IN lists beyond it run unprepared.
const maxCachedStatements = 128

// stmtConn is the writer's dedicated connection. Statements are prepared
// once and kept for the life of the store: preparing dominates the cost of
// the small statements an append runs.
type stmtConn struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
	// execs counts ExecContext calls, the only way the store writes: a
	// request that fails without one has written nothing (writer.go).
	execs uint64
}

var _ querier = (*stmtConn)(nil)

func newStmtConn(ctx context.Context, db *sql.DB) (*stmtConn, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("writer connection: %w", err)
	}
	return &stmtConn{conn: conn, stmts: map[string]*sql.Stmt{}}, nil
}

func (c *stmtConn) prepared(ctx context.Context, query string) *sql.Stmt {
	if st, ok := c.stmts[query]; ok {
		return st
	}
	if len(c.stmts) >= maxCachedStatements {
		return nil
	}
	st, err := c.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil // the unprepared call reports the error
	}
	c.stmts[query] = st
	return st
}

func (c *stmtConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	c.execs++
	if st := c.prepared(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return c.conn.ExecContext(ctx, query, args...)
}

func (c *stmtConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := c.prepared(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return c.conn.QueryContext(ctx, query, args...)
}

func (c *stmtConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := c.prepared(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return c.conn.QueryRowContext(ctx, query, args...)
}

// Close releases the statements and the connection.
func (c *stmtConn) Close() error {
	for _, st := range c.stmts {
		st.Close()
	}
	return c.conn.Close()
}
