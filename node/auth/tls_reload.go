package auth

import (
	"fmt"
	"log/slog"
	"os"
	"sync"
)

// reloading holds what load makes of some files (a key pair, a CA pool)
// and makes it again when one of the files changed: each current() call
// stats the files (fileStamp) and reloads on a change,
// so renewed certificates apply at the next TLS handshake without a
// restart. A reload that fails keeps the previous value, with a warning;
// only the first load's error is returned.
type reloading[T any] struct {
	files []string
	load  func() (T, error)
	log   *slog.Logger
	what  string // for the log lines: "HTTPS key pair", ...

	mu     sync.Mutex
	stamps []fileStamp
	value  T
}

// fileStamp is what tells a changed file: another file at the path (a
// renewal renamed or symlinked into place), another size or another
// modification time.
type fileStamp struct{ fi os.FileInfo }

func (a fileStamp) same(b fileStamp) bool {
	return os.SameFile(a.fi, b.fi) && a.fi.Size() == b.fi.Size() && a.fi.ModTime().Equal(b.fi.ModTime())
}

// newReloading loads once; its error stops the node.
func newReloading[T any](what string, log *slog.Logger, load func() (T, error), files ...string) (*reloading[T], error) {
	r := &reloading[T]{files: files, load: load, log: log, what: what}
	stamps, err := r.stat()
	if err != nil {
		return nil, err
	}
	if r.value, err = load(); err != nil {
		return nil, err
	}
	r.stamps = stamps
	return r, nil
}

func (r *reloading[T]) stat() ([]fileStamp, error) {
	out := make([]fileStamp, len(r.files))
	for i, f := range r.files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.what, err)
		}
		out[i] = fileStamp{fi: fi}
	}
	return out, nil
}

// current returns the value, reloaded first if a file changed.
func (r *reloading[T]) current() T {
	r.mu.Lock()
	defer r.mu.Unlock()
	stamps, err := r.stat()
	if err == nil && equalStamps(stamps, r.stamps) {
		return r.value
	}
	var v T
	if err == nil {
		v, err = r.load()
	}
	if err != nil {
		r.log.Warn(r.what+" files unreadable; keeping the previous ones", "err", err)
		return r.value
	}
	r.log.Info(r.what+" files changed; new handshakes use them", "files", r.files)
	r.value, r.stamps = v, stamps
	return v
}

func equalStamps(a, b []fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].same(b[i]) {
			return false
		}
	}
	return true
}
