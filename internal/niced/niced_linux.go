package niced

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// Run runs fn on an OS thread of its own at the lowest CPU priority
// (nice 19) and waits for it. The thread ends with fn (a goroutine that
// exits locked to its thread takes the thread with it), so no other
// goroutine ever runs at that priority, and no privilege is needed to
// raise it back.
func Run(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		// Best effort: a thread that cannot be niced runs at its priority.
		_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19)
		done <- fn()
	}()
	return <-done
}
