//go:build windows

package datadir

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// errHeld is tryLock's error for a lock that another handle holds.
var errHeld = errors.New("held elsewhere")

// lockOffset is where the locked byte lies: far past any record, since
// Windows locks are mandatory and a refused process must still read the
// record.
const lockOffset = 1 << 62

// tryLock takes an exclusive LockFileEx on one byte of f without waiting.
func tryLock(f *os.File) error {
	ol := &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	err := windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errHeld
	}
	return err
}
