package store

import (
	"context"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestLingerer_BacksOffWhenNothingComes(t *testing.T) {
	l := newLingerer(time.Millisecond)
	if l.wanted(lingerBelow) {
		t.Fatalf("a transaction of %d items lingers", lingerBelow)
	}
	if !l.wanted(1) {
		t.Fatal("a fresh lingerer does not linger")
	}
	// Fruitless lingers skip 1, 2, 4, ... commits.
	for _, skip := range []int{1, 2, 4, 8} {
		l.gathered(0)
		for i := 0; i < skip; i++ {
			if l.wanted(1) {
				t.Fatalf("lingers %d commits into a backoff of %d", i, skip)
			}
		}
		if !l.wanted(1) {
			t.Fatalf("still backing off after %d commits", skip)
		}
	}
	l.gathered(3)
	if !l.wanted(1) {
		t.Fatal("a fruitful linger left a backoff")
	}
	l.gathered(0)
	if l.skip != 1 {
		t.Fatalf("after a fruitful linger, a fruitless one skips %d commits, want 1", l.skip)
	}
	for i := 0; i < 20; i++ {
		l.gathered(0)
	}
	if l.skip != maxLingerBackoff {
		t.Fatalf("backoff grew to %d, want the cap %d", l.skip, maxLingerBackoff)
	}
	if off := newLingerer(0); off.wanted(1) {
		t.Fatal("a zero window lingers")
	}
}

// TestLinger_WriteJoinsLingeringCommit holds the writer in a linger (its
// timer is the test's) while a second write comes: both commit together.
func TestLinger_WriteJoinsLingeringCommit(t *testing.T) {
	reg := prometheus.NewRegistry()
	s, err := Open(context.Background(), Config{Dir: t.TempDir(), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lingering, expire := make(chan struct{}), make(chan time.Time)
	s.lingerer.after = func(time.Duration) <-chan time.Time {
		close(lingering)
		return expire
	}
	ctx := context.Background()
	first := make(chan error, 1)
	go func() {
		_, err := s.Append(ctx, note("agent-a", "agent-b"))
		first <- err
	}()
	select {
	case <-lingering:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer did not linger before committing a lone append")
	}
	second := make(chan error, 1)
	go func() {
		_, err := s.Append(ctx, note("agent-c", "agent-b"))
		second <- err
	}()
	waitJoined(t, s)
	waitCommits(t, s, 0)
	close(expire)
	for _, done := range []chan error{first, second} {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n, writes := commits(t, s); n != 1 || writes != 2 {
		t.Fatalf("%d commits of %v writes, want one commit of both", n, writes)
	}
}

// waitJoined waits until a write has joined the lingering transaction.
func waitJoined(t *testing.T, s *Store) {
	t.Helper()
	testwait.For(t, 10*time.Second, func() (bool, string) {
		var m dto.Metric
		if err := s.metrics.lingerJoined.Write(&m); err != nil {
			t.Fatal(err)
		}
		return m.GetCounter().GetValue() > 0, "no write joined the lingering transaction"
	})
}

// commits is the number of commits so far and the writes they carried.
func commits(t *testing.T, s *Store) (n uint64, writes float64) {
	t.Helper()
	var m dto.Metric
	if err := s.metrics.batchSize.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

func waitCommits(t *testing.T, s *Store, want uint64) {
	t.Helper()
	if n, _ := commits(t, s); n != want {
		t.Fatalf("%d commits before the linger ended, want %d", n, want)
	}
}
