package hlc

import (
	"sync"
	"testing"
	"time"
)

var (
	_ WallClock = SystemClock{}
	_ WallClock = (*ManualClock)(nil)
)

func TestManualClock(t *testing.T) {
	start := msTime(1000)
	m := NewManualClock(start)
	if got := m.Now(); !got.Equal(start) {
		t.Fatalf("Now() = %v, want %v", got, start)
	}
	m.Advance(5 * time.Millisecond)
	if got := m.Now().UnixMilli(); got != 1005 {
		t.Fatalf("after Advance(5ms): %d, want 1005", got)
	}
	m.Advance(-10 * time.Millisecond)
	if got := m.Now().UnixMilli(); got != 995 {
		t.Fatalf("after Advance(-10ms): %d, want 995", got)
	}
	m.Set(msTime(7))
	if got := m.Now().UnixMilli(); got != 7 {
		t.Fatalf("after Set(7): %d, want 7", got)
	}
}

func TestManualClock_Concurrent(t *testing.T) {
	m := NewManualClock(msTime(0))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				m.Advance(time.Millisecond)
				_ = m.Now()
			}
		})
	}
	wg.Wait()
	if got := m.Now().UnixMilli(); got != 4000 {
		t.Fatalf("Now() = %d ms, want 4000", got)
	}
}
