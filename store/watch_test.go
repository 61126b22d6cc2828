package store

import (
	"context"
	"testing"
)

// fired reports whether ch is closed, without waiting: the writer wakes
// watches before the append that woke them returns.
func fired(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestWatch_WakesOnlyOnMatchingCommits: a watch sleeps through commits of
// events its filter cannot return and wakes at the first one it can.
func TestWatch_WakesOnlyOnMatchingCommits(t *testing.T) {
	s, _ := openTestStore(t)
	mailbox := &ReadScope{Agents: []string{"a"}, Broadcasts: true}
	cases := []struct {
		name    string
		f       Filter
		miss    AppendInput // does not wake the watch
		matches AppendInput // wakes it
	}{
		{"stream", Filter{Stream: "x"},
			AppendInput{Type: "note", Stream: "y", Room: "r", FromAgent: "p"},
			AppendInput{Type: "note", Stream: "x", Room: "r", FromAgent: "p"}},
		{"to_agent takes broadcasts", Filter{ToAgent: "a"},
			AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "p", ToAgent: "b"},
			AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "p", ToAgent: "*"}},
		{"writer and thread", Filter{Writer: "p", CorrelationID: "t-1"},
			AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "p", CorrelationID: "t-2"},
			AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "p", CorrelationID: "t-1"}},
		{"read scope", Filter{Scope: mailbox},
			AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "p", ToAgent: "b"},
			AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "p", ToAgent: "a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := s.NewWatch(tc.f)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			ch := w.Arm()
			mustAppend(t, s, tc.miss)
			if fired(ch) {
				t.Fatalf("woken by %+v", tc.miss)
			}
			mustAppend(t, s, tc.matches)
			if !fired(ch) {
				t.Fatalf("not woken by %+v", tc.matches)
			}
			if next := w.Arm(); fired(next) {
				t.Fatal("re-armed watch fired without a commit")
			}
		})
	}
}

// TestWatch_InvalidFilterAndClose: a watch validates its filter as List
// does, and closing the store wakes an armed watch.
func TestWatch_InvalidFilterAndClose(t *testing.T) {
	s, _ := openTestStore(t)
	if _, err := s.NewWatch(Filter{Type: "no such type!"}); err == nil {
		t.Fatal("invalid filter accepted")
	}
	if _, listErr := s.List(context.Background(), Filter{Type: "no such type!"}); listErr == nil {
		t.Fatal("List accepted the filter the watch refused")
	}
	w, err := s.NewWatch(Filter{Stream: "quiet"})
	if err != nil {
		t.Fatal(err)
	}
	ch := w.Arm()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !fired(ch) {
		t.Fatal("closing the store did not wake the watch")
	}
	if !fired(w.Arm()) {
		t.Fatal("a watch armed after close does not fire")
	}
}
