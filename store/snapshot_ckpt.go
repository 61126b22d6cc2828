package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/lsnode/lsnode/internal/niced"
)

// While a snapshot's read transaction pins the WAL, no checkpoint can
// copy past it. SQLite's automatic checkpoint on the writer (WriterDSN)
// would then run after every commit once the WAL is past its threshold,
// and each of those attempts walks the whole WAL inside the commit: in
// BenchmarkSnapshot the appends' p99 during a copy of a 1M-event log was
// 1.7-1.8 s with it on and 240-253 ms with it off, against 156-188 ms
// without a copy (docs/benchmarks.md). So while a copy runs, the writer's automatic
// checkpoint is off; the checkpointer goes on beside the writer
// (checkpointer.go). When the last copy ends, the checkpointer first
// copies the WAL the snapshot held back, beside the writer, and only then
// is the automatic checkpoint back: turned on at once, its first round
// would copy all of that inside one commit, and every append queued
// behind that commit would wait for it.

// autoCheckpointHold counts the copies that hold the writer's automatic
// checkpoint off.
type autoCheckpointHold struct {
	mu     sync.Mutex
	copies int
}

// copyLive is the page copy of a serving store's database (Snapshot):
// with the automatic checkpoint off for as long as it reads, on a niced
// thread so the writer gets a core first.
func (s *Store) copyLive(ctx context.Context, src, dst string) error {
	return s.withAutoCheckpointOff(ctx, func() error {
		return niced.Run(func() error { return copyPagesToFile(ctx, src, dst) })
	})
}

// withAutoCheckpointOff runs copyDB with the writer's automatic
// checkpoint off.
func (s *Store) withAutoCheckpointOff(ctx context.Context, copyDB func() error) error {
	if err := s.holdAutoCheckpoint(ctx); err != nil {
		return err
	}
	defer s.releaseAutoCheckpoint()
	return copyDB()
}

// holdAutoCheckpoint turns the writer's automatic checkpoint off for one
// copy; releaseAutoCheckpoint undoes it.
func (s *Store) holdAutoCheckpoint(ctx context.Context) error {
	s.autoCkpt.mu.Lock()
	defer s.autoCkpt.mu.Unlock()
	if s.autoCkpt.copies == 0 && !s.cfg.ReadOnly {
		if err := s.setAutoCheckpoint(ctx, 0); err != nil {
			return err
		}
	}
	s.autoCkpt.copies++
	return nil
}

func (s *Store) releaseAutoCheckpoint() {
	s.autoCkpt.mu.Lock()
	defer s.autoCkpt.mu.Unlock()
	if s.autoCkpt.copies--; s.autoCkpt.copies == 0 && !s.cfg.ReadOnly {
		if err := s.ckpt.checkpoint(context.Background()); err != nil {
			s.log.Warn("checkpoint after a snapshot", "err", err)
		}
		if err := s.setAutoCheckpoint(context.Background(), autoCheckpointPages); err != nil {
			s.log.Warn("turn the automatic checkpoint back on after a snapshot", "err", err)
		}
	}
}

// setAutoCheckpoint sets the writer connection's automatic checkpoint
// threshold (0: off).
func (s *Store) setAutoCheckpoint(ctx context.Context, pages int) error {
	return s.write(ctx, func(w *writeTx) error {
		if _, err := w.tx.ExecContext(w.ctx, fmt.Sprintf("PRAGMA wal_autocheckpoint=%d", pages)); err != nil {
			return fmt.Errorf("set the automatic checkpoint: %w", err)
		}
		return nil
	})
}
