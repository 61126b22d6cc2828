// Package writeback writes a large file beside a database whose syncs
// (its checkpoints, and its commits when they sync) must not wait behind
// it, without leaving much of the file dirty in the page cache.
//
// A file written at full speed is flushed by the kernel later, in bursts
// of hundreds of MiB; an fsync issued meanwhile waits in the disk's queue
// behind the burst (and, on a journaling filesystem, can wait for the
// file's newly allocated blocks to be written with the same journal
// commit). A Writer instead hands each chunk to the disk as soon
// as it is written (sync_file_range(2) where the system has it) and waits
// for the chunk before, so at most two chunks are ever dirty and an fsync
// waits for at most that much. The idea is the one of RocksDB's
// bytes_per_sync and PostgreSQL's backend_flush_after.
package writeback

import (
	"bufio"
	"fmt"
	"os"
)

// Chunk is the chunk a large file beside a database is written in. In
// the store's BenchmarkSnapshot (docs/benchmarks.md) 1 MiB chunks cost
// the appends beside a backup less than 8 MiB ones or none.
const Chunk = 1 << 20

// Writer writes a file from its start, a chunk at a time. Sync must be
// called for the last bytes to be written.
type Writer struct {
	f     *os.File
	buf   *bufio.Writer
	chunk int64
	// written counts the bytes written; started and prevStarted end the
	// bytes handed to the disk by the last chunk and by the one before.
	written, started, prevStarted int64
	hints                         bool // the filesystem takes writeback hints
}

// New writes f, which must be empty, from its start in chunks of chunk
// bytes; chunk 0 leaves the flushing to the kernel until Sync.
func New(f *os.File, chunk int64) *Writer {
	return &Writer{f: f, buf: bufio.NewWriterSize(f, 256<<10), chunk: chunk, hints: chunk > 0}
}

// Write writes p, handing a chunk to the disk whenever one is complete.
func (w *Writer) Write(p []byte) (int, error) {
	n, err := w.buf.Write(p)
	w.written += int64(n)
	if err != nil {
		return n, err
	}
	if w.chunk > 0 && w.written-w.started >= w.chunk {
		if err := w.writeChunk(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// writeChunk starts the writeback of the bytes written since the last
// chunk and waits for the chunk before.
func (w *Writer) writeChunk() error {
	if err := w.buf.Flush(); err != nil {
		return err
	}
	if w.hints {
		if err := startWriteback(w.f, w.started, w.written-w.started); err != nil {
			return w.noHints(err)
		}
		if err := awaitWriteback(w.f, w.prevStarted, w.started-w.prevStarted); err != nil {
			return w.noHints(err)
		}
	}
	w.prevStarted, w.started = w.started, w.written
	return nil
}

// noHints turns the hints off on a filesystem that refuses them; any
// other error is the write's.
func (w *Writer) noHints(err error) error {
	if unsupported(err) {
		w.hints = false
		return nil
	}
	return fmt.Errorf("write back %s: %w", w.f.Name(), err)
}

// Sync writes every byte written so far to the disk (fsync).
func (w *Writer) Sync() error {
	if err := w.buf.Flush(); err != nil {
		return err
	}
	return w.f.Sync()
}
