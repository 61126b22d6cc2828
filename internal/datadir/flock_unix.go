//go:build unix

package datadir

import (
	"errors"
	"os"
	"syscall"
)

// errHeld is tryLock's error for a lock that another open file
// description holds.
var errHeld = errors.New("held elsewhere")

// tryLock takes an exclusive flock(2) on f without waiting. The lock
// belongs to f's open file description: another open of the same file,
// in this process or another, conflicts with it.
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errHeld
		}
		return err
	}
}
