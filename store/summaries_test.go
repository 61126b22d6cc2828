package store

import (
	"context"
	"encoding/json"
	"fmt"
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
	all, more, err := s.Streams(ctx, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if more || len(all) != 2 || all[0].Stream != "ops" || all[0].Events != 1 || all[1].Events != 2 || all[0].LastActive <= all[1].LastActive {
		t.Fatalf("streams: %+v; want ops (1, newest) then the notes' stream (2)", all)
	}
	scoped, _, err := s.Streams(ctx, &ReadScope{Agents: []string{"carol"}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(scoped) != 1 || scoped[0].Stream != "ops" || scoped[0].Events != 1 {
		t.Fatalf("carol's streams: %+v", scoped)
	}
	none, _, err := s.Streams(ctx, &ReadScope{}, 10)
	if err != nil || len(none) != 0 {
		t.Fatalf("an empty scope's streams: %+v %v", none, err)
	}
	first, more, err := s.Streams(ctx, nil, 1)
	if err != nil || !more || len(first) != 1 || first[0].Stream != "ops" {
		t.Fatalf("the most recent stream: %+v %v %v", first, more, err)
	}
}

func TestStreams_CountsStopAtTheCap(t *testing.T) {
	s, _ := openReplica(t, "rep_000000000001")
	ctx := context.Background()
	var b Batch
	for seq := 1; seq <= StreamCountCap+5; seq++ {
		b.Ops = append(b.Ops, Op{Event: Event{ID: fmt.Sprintf("evt_20260101T000000_%012x", seq), OriginReplica: "rep_00000000000f",
			OriginSeq: int64(seq), HLC: fmt.Sprintf("%013d-000000-rep_00000000000f", 1767225600000+seq), Type: "note",
			Stream: "busy", Room: "r", FromAgent: "x", CreatedAt: "2026-01-01T00:00:00Z", Metadata: json.RawMessage("{}")},
			PrevSeq: int64(seq - 1)})
	}
	if res := mustApply(t, s, b); res.Applied != StreamCountCap+5 {
		t.Fatalf("applied %+v", res)
	}
	got, _, err := s.Streams(ctx, nil, 10)
	if err != nil || len(got) != 1 || got[0].Events != StreamCountCap || !got[0].Capped {
		t.Fatalf("a stream past the cap: %+v %v", got, err)
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
