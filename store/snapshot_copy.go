package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"

	"github.com/lsnode/lsnode/internal/writeback"
)

// A snapshot's page copy. The pages are read through SQLite's
// sqlite_dbpage table in one statement inside one read transaction, so
// the copy is the database as of one commit, page for page (every rowid
// kept). In WAL mode the read transaction blocks no writer: the WAL grows
// while it lasts and the checkpointer catches up after, so the copy goes
// as fast as it can to keep that short. It copies about 1.5 times as fast
// as SQLite's online backup API (BenchmarkSnapshot).
//
// The copy's file is written through internal/writeback, which hands it
// to the disk a chunk at a time, so that no commit's sync (a checkpoint's,
// or every commit's with synchronous=FULL) waits behind hundreds of MiB
// of copy. A serving store's copy also runs niced with the automatic
// checkpoint off (snapshot_ckpt.go).

// The copy is not paced: in BenchmarkSnapshot a copy held to 40 or
// 64 MiB/s cost the appends more than one at full speed, since it pinned
// the WAL longer.

// copyPagesToFile writes the database at src, as of one commit, to a new
// file dst and syncs it.
func copyPagesToFile(ctx context.Context, src, dst string) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	w := writeback.New(f, writeback.Chunk)
	err = copyPages(ctx, src, w)
	if err == nil {
		err = w.Sync()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}

// copyPages writes every page of the database at src, as of one commit,
// to w.
func copyPages(ctx context.Context, src string, w io.Writer) error {
	db, err := openFile(src)
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return err
	}
	// The transaction only reads; ending it releases its snapshot.
	defer func() { _, _ = conn.ExecContext(context.Background(), "ROLLBACK") }()
	var pages int64
	if err := conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return fmt.Errorf("read page count: %w", err)
	}
	copied, err := writePages(ctx, conn, w)
	if err == nil && copied != pages {
		err = fmt.Errorf("copied %d pages of %d", copied, pages)
	}
	return err
}

// writePages writes every page the transaction on conn sees to w and
// returns the pages written.
func writePages(ctx context.Context, conn *sql.Conn, w io.Writer) (int64, error) {
	rows, err := conn.QueryContext(ctx, "SELECT data FROM sqlite_dbpage")
	if err != nil {
		return 0, fmt.Errorf("read pages: %w", err)
	}
	defer rows.Close()
	var pages int64
	for rows.Next() {
		var page sql.RawBytes
		if err := rows.Scan(&page); err != nil {
			return pages, fmt.Errorf("read page %d: %w", pages+1, err)
		}
		if _, err := w.Write(page); err != nil {
			return pages, fmt.Errorf("write copy: %w", err)
		}
		pages++
		if err := ctx.Err(); err != nil { // a client that went away
			return pages, err
		}
	}
	if err := rows.Err(); err != nil {
		return pages, fmt.Errorf("read pages: %w", err)
	}
	return pages, nil
}
