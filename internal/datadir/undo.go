package datadir

import (
	"errors"
	"os"
	"path/filepath"
)

// Undoing a lock. A command that fails before it has made a dir a data
// dir (serve that cannot bind its port, a refused or failed restore, a
// backup of a dir that is no data dir) should leave the dir as it found
// it, lock file included, so Acquire notes what the dir was.

// prior is what a dir was before Acquire.
type prior struct {
	missing bool // the dir did not exist: Acquire created it
	empty   bool // it existed and held nothing
	hadLock bool // it held a lock file
}

func priorOf(dir string) prior {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return prior{missing: true}
	}
	p := prior{empty: err == nil && len(entries) == 0}
	if _, err := os.Lstat(filepath.Join(dir, LockFile)); err == nil {
		p.hadLock = true
	}
	return p
}

// Undo releases the lock and removes what was added to the dir since
// Acquire, as far as that can be known: a dir Acquire created is removed
// with everything in it, a dir that was empty is emptied again, and in a
// dir that held something only a lock file Acquire created is removed.
// The lock is released after the removal, so no other process can take
// the dir in between.
func (l *Lock) Undo() error {
	var err error
	switch {
	case l.before.missing:
		err = os.RemoveAll(l.dir)
	case l.before.empty:
		entries, _ := os.ReadDir(l.dir)
		for _, e := range entries {
			err = errors.Join(err, os.RemoveAll(filepath.Join(l.dir, e.Name())))
		}
	case !l.before.hadLock:
		if rerr := os.Remove(filepath.Join(l.dir, LockFile)); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = rerr
		}
	}
	return errors.Join(err, l.Release())
}
