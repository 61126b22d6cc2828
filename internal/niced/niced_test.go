package niced

import (
	"errors"
	"runtime"
	"testing"
)

// TestRun_ReturnsFnsErrorOnALoweredThread runs fn and hands back its
// error; on Linux fn's thread runs at nice 19 while the caller's keeps
// its priority.
func TestRun_ReturnsFnsErrorOnALoweredThread(t *testing.T) {
	want := errors.New("from fn")
	var inside int
	err := Run(func() error {
		inside = threadNice(t)
		return want
	})
	if !errors.Is(err, want) {
		t.Fatalf("Run = %v, want fn's error", err)
	}
	if runtime.GOOS == "linux" && inside != 19 {
		t.Errorf("fn ran at nice %d, want 19", inside)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if got := threadNice(t); runtime.GOOS == "linux" && got == 19 {
		t.Errorf("the caller's thread runs at nice 19 after Run")
	}
}
