package datadir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// LockFile is the name of the lock file inside a data dir.
const LockFile = "LOCK"

// maxRecord bounds what is read of a lock file: a record is a few dozen
// bytes, anything longer is not one.
const maxRecord = 4 << 10

// Holder is what the lock file tells of the process that holds the dir.
type Holder struct {
	PID int `json:"pid"`
	// HTTP is the base URL of the holder's HTTP surface, "" until it
	// has bound it (or when it serves none).
	HTTP string `json:"http,omitempty"`
}

// LockedError is the refusal of a data dir held by another process, or
// by another Lock of this one.
type LockedError struct {
	Dir    string // absolute
	Holder Holder // zero when the lock file holds no readable record
}

func (e *LockedError) Error() string {
	var who string
	switch h := e.Holder; {
	case h.PID == 0:
		who = "another process (the lock file names none yet)"
	case h.HTTP == "":
		who = fmt.Sprintf("pid %d (no HTTP address recorded yet)", h.PID)
	default:
		who = fmt.Sprintf("pid %d, serving %s", h.PID, h.HTTP)
	}
	return fmt.Sprintf("data dir %s is in use by %s: one process at a time may use a data dir", e.Dir, who)
}

// Lock is a data dir held by this process. Release it when done; the
// kernel releases it if the process dies first.
type Lock struct {
	dir    string
	f      *os.File
	holder Holder
	// before is what the dir was when Acquire took it (Undo).
	before prior
}

// Acquire creates dir (0700) when it is missing, locks it and records
// this process's pid in the lock file. It never waits: a dir held by
// another process, or by another Lock in this one, is refused at once
// with a *LockedError naming the holder.
func Acquire(dir string) (*Lock, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("data dir %s: %w", dir, err)
	}
	before := priorOf(abs)
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("data dir %s: %w", abs, err)
	}
	path := filepath.Join(abs, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data dir lock: %w", err)
	}
	if err := tryLock(f); err != nil {
		defer f.Close()
		if errors.Is(err, errHeld) {
			return nil, &LockedError{Dir: abs, Holder: readRecord(f)}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	l := &Lock{dir: abs, f: f, holder: Holder{PID: os.Getpid()}, before: before}
	if err := l.write(); err != nil {
		f.Close() // closing the only descriptor releases the lock
		return nil, err
	}
	return l, nil
}

// Dir is the absolute path of the locked dir.
func (l *Lock) Dir() string { return l.dir }

// SetHTTP records the base URL of the holder's HTTP surface, for a
// process that is refused the dir to name.
func (l *Lock) SetHTTP(url string) error {
	l.holder.HTTP = url
	return l.write()
}

// Release unlocks the dir. The lock file stays.
func (l *Lock) Release() error {
	return l.f.Close()
}

// write replaces the lock file's record with l.holder.
func (l *Lock) write() error {
	rec, err := json.Marshal(l.holder)
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("data dir lock: %w", err)
	}
	if _, err := l.f.WriteAt(append(rec, '\n'), 0); err != nil {
		return fmt.Errorf("data dir lock: %w", err)
	}
	return nil
}

// readRecord reads the holder's record; a missing, partial or foreign
// one reads as the zero Holder.
func readRecord(f *os.File) Holder {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, maxRecord))
	var h Holder
	if err != nil || json.Unmarshal([]byte(strings.TrimSpace(string(b))), &h) != nil || h.PID <= 0 {
		return Holder{}
	}
	return h
}
