package store

import (
	"errors"
	"fmt"
	"os"
)

// The free-space check before a snapshot. A snapshot is a full copy of
// the log written to the data dir's disk while the node keeps appending
// there, so a copy that filled the disk would make the node's own writes
// fail. It is refused unless the disk holds the copy (the database and
// its WAL, the most the copy can be) and a margin for the node's writes
// meanwhile: a tenth of the copy, at least snapshotMinMargin.

// ErrNoSpace refuses a snapshot the disk has no room for.
var ErrNoSpace = errors.New("not enough free disk space for a snapshot")

// snapshotMinMargin is the least free space a snapshot leaves.
const snapshotMinMargin = 64 << 20

// freeSpace reports the free bytes of dir; a variable so tests can give
// the disk a size.
var freeSpace = diskFree

// checkSnapshotSpace refuses a snapshot of the database at src into dir
// when dir's disk cannot hold it with the margin.
func checkSnapshotSpace(src, dir string) error {
	var size uint64
	for _, p := range []string{src, src + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			size += uint64(fi.Size())
		}
	}
	free, ok, err := freeSpace(dir)
	if err != nil {
		return fmt.Errorf("free space of %s: %w", dir, err)
	}
	if !ok {
		return nil
	}
	need := size + max(size/10, snapshotMinMargin)
	if free < need {
		return fmt.Errorf("%w: the snapshot of a %d-byte log needs %d bytes free in %s (the copy and a margin for the node's own writes), and %d are free",
			ErrNoSpace, size, need, dir, free)
	}
	return nil
}
