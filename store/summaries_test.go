package store

import (
	"context"
	"testing"
	"time"
)

func TestStreams_CountsAndLastActivityInScope(t *testing.T) {
	s, wall := openReplica(t, "rep_000000000001")
	ctx := context.Background()
	for _, in := range []AppendInput{note("alice", "bob"), note("bob", "alice"), {Type: "note", Stream: "ops", Room: "r", FromAgent: "carol", Body: "x"}} {
		if _, err := s.Append(ctx, in); err != nil {
			t.Fatal(err)
		}
		wall.Advance(2 * time.Second)
	}
	all, err := s.Streams(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Stream != "ops" || all[0].Events != 1 || all[1].Events != 2 || all[0].LastActive <= all[1].LastActive {
		t.Fatalf("streams: %+v; want ops (1, newest) then the notes' stream (2)", all)
	}
	scoped, err := s.Streams(ctx, &ReadScope{Agents: []string{"carol"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(scoped) != 1 || scoped[0].Stream != "ops" || scoped[0].Events != 1 {
		t.Fatalf("carol's streams: %+v", scoped)
	}
	none, err := s.Streams(ctx, &ReadScope{})
	if err != nil || len(none) != 0 {
		t.Fatalf("an empty scope's streams: %+v %v", none, err)
	}
}

func TestQuarantineReasons(t *testing.T) {
	s, _ := openReplica(t, "rep_000000000001")
	ctx := context.Background()
	got, err := s.QuarantineReasons(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty quarantine: %v %v", got, err)
	}
	bad := Op{Event: Event{ID: "evt_bad", OriginReplica: "rep_00000000000f", OriginSeq: 1, HLC: "not-a-stamp",
		Type: "note", Stream: "s", Room: "r", FromAgent: "x", CreatedAt: "2026-01-01T00:00:00Z"}}
	mustApply(t, s, Batch{Ops: []Op{bad}})
	got, err = s.QuarantineReasons(ctx)
	if err != nil || got["invalid"] != 1 || len(got) != 1 {
		t.Fatalf("reasons: %v %v", got, err)
	}
}
