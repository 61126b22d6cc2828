package niced

import (
	"testing"

	"golang.org/x/sys/unix"
)

// threadNice is the nice value of the calling thread.
func threadNice(t *testing.T) int {
	t.Helper()
	// getpriority(2) returns 20 - nice through the raw system call.
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	if err != nil {
		t.Fatal(err)
	}
	return 20 - prio
}
