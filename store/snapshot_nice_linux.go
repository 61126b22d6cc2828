package store

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// runNiced runs fn on an OS thread of its own at the lowest CPU priority
// (nice 19) and waits for it: the kernel then gives the process's other
// threads, the writer's among them, a core first. The thread ends with
// fn (a goroutine that exits locked to its thread takes the thread with
// it), so no other goroutine ever runs at that priority.
func runNiced(fn func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		// Best effort: a thread that cannot be niced runs at its priority.
		_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19)
		done <- fn()
	}()
	return <-done
}
