package store

import (
	"context"
	"errors"
)

// A COMMIT that fails can leave its whole transaction, commit frame
// included, in the WAL. SQLite appends a transaction's frames to the WAL
// file and only then records them in the wal-index (the -shm file), whose
// header is what every connection reads to know where the WAL ends. When
// the wal-index has to grow and the disk is full, the COMMIT fails
// (SQLITE_IOERR_SHMSIZE, "disk I/O error (4874)") after the frames were
// written: the transaction is rolled back, no connection sees it, and the
// store's version vector rightly leaves it out. But the frames stay in the
// WAL past the wal-index's end, and the first open after the process
// ended without a checkpoint (a crash, or a close on the still full disk)
// rebuilds the wal-index from the WAL file: it finds that transaction
// whole and commits it. A caller told that its write failed would find it
// stored after a restart.
//
// The next transaction the writer commits writes its frames from the same
// place, over the first frames of the failed one. Each frame's checksum
// covers every frame before it in the WAL, so the failed transaction's
// remaining frames no longer check and a rebuild stops before them. So
// right after a failed COMMIT, before its callers are answered, the writer
// commits a transaction of its own that leaves the database as it was
// (sealWAL). Its frames go where the failed transaction's frames are, in
// space the WAL file already holds, so they can be written on a full disk;
// if its own COMMIT fails the same way, only its frames, which change
// nothing, can come back. With synchronous=NORMAL a power loss can undo
// the seal as it can undo committed transactions; a crash of the process
// cannot.

// sealKey is the lsnode_meta row the seal writes and deletes again.
const sealKey = "wal_seal"

// sealWarning is logged when the seal fails. A seal that fails because
// the disk is full mostly follows a COMMIT that failed the same way,
// before it wrote a commit frame: then there is nothing to seal.
const sealWarning = "seal the WAL after a failed commit; until the next commit, a crash may still store the failed transaction"

// sealWAL commits a transaction that changes nothing, so that the frames a
// failed COMMIT may have left in the WAL can never be committed by a
// rebuild of the wal-index. The callers of the failed batch are answered
// with the COMMIT's error either way.
func (s *Store) sealWAL(ctx context.Context) {
	for _, q := range []string{
		"BEGIN IMMEDIATE",
		// A row written and deleted in one transaction: the page it
		// touched is written to the WAL, the database does not change.
		`INSERT OR REPLACE INTO lsnode_meta (key, value) VALUES ('` + sealKey + `', '')`,
		`DELETE FROM lsnode_meta WHERE key = '` + sealKey + `'`,
		"COMMIT",
	} {
		if _, err := s.writer.ExecContext(ctx, q); err != nil {
			s.log.Warn(sealWarning, "err", errors.Join(err, rollback(ctx, s.writer)))
			return
		}
	}
}
