//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import "golang.org/x/sys/unix"

// diskFree returns the bytes an unprivileged process may still write on
// the filesystem holding dir (statfs(2): available blocks times the block
// size); ok is false where that cannot be known.
func diskFree(dir string) (free uint64, ok bool, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), true, nil
}
