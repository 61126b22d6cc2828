package writeback

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback starts writing the bytes [off, off+n) of f to the disk
// and returns without waiting.
func startWriteback(f *os.File, off, n int64) error {
	if n <= 0 {
		return nil
	}
	return unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// awaitWriteback waits until the bytes [off, off+n) of f are on the disk.
func awaitWriteback(f *os.File, off, n int64) error {
	if n <= 0 {
		return nil
	}
	return unix.SyncFileRange(int(f.Fd()), off, n,
		unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
}

// unsupported reports an error of a file that takes no writeback hints
// (a pipe, a special file, a filesystem without them).
func unsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ESPIPE) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)
}
