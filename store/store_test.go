package store

import (
	"context"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
)

// testClockStart is the manual wall clock's start in store tests.
var testClockStart = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// openTestStore opens a store in a fresh temp dir with a manual clock.
func openTestStore(t *testing.T) (*Store, *hlc.ManualClock) {
	t.Helper()
	wall := hlc.NewManualClock(testClockStart)
	s, err := Open(context.Background(), Config{Dir: t.TempDir(), Wall: wall})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s, wall
}

func mustAppend(t *testing.T, s *Store, in AppendInput) Event {
	t.Helper()
	w, err := s.Append(context.Background(), in)
	if err != nil {
		t.Fatalf("append %+v: %v", in, err)
	}
	return w.Event
}

func TestAppendAndList(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	e1 := mustAppend(t, s, AppendInput{Type: "task.request", Stream: "project/x", Room: "delegation", FromAgent: "a@1", ToAgent: "b@2", Body: "hi"})
	e2 := mustAppend(t, s, AppendInput{Type: "note", Stream: "project/x", Room: "delegation", FromAgent: "b@2", ToAgent: "*"})
	if e1.OriginSeq != 1 || e2.OriginSeq != 2 {
		t.Fatalf("origin seqs = %d, %d; want 1, 2", e1.OriginSeq, e2.OriginSeq)
	}
	if e1.HLC >= e2.HLC {
		t.Fatalf("hlc not increasing: %s then %s", e1.HLC, e2.HLC)
	}
	res, err := s.List(ctx, Filter{ToAgent: "b@2"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 2 || res.Events[0].ID != e2.ID {
		t.Fatalf("list to b@2 = %v; want both, newest first", ids(res.Events))
	}
	vv := s.VersionVector()
	if vv[s.ReplicaID()] != 2 {
		t.Fatalf("vv = %v", vv)
	}
}

func ids(evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}
