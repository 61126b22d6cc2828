package store

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestEvent_MarshalJSONRoundTrip: an event with every field set, odd
// characters included, renders to valid JSON that decodes to itself.
func TestEvent_MarshalJSONRoundTrip(t *testing.T) {
	e := Event{ID: "evt_1", Seq: 7, OriginReplica: repA, OriginSeq: 3, HLC: "h", Type: "note", Stream: "s\"x",
		Room: "r", Topic: "t\n", FromAgent: "a<b>", ToAgent: "*", CorrelationID: "c", Branch: "main",
		BaseCommit: "abc", Status: "open", ArtifactIDs: []string{"art_1", "art_\\2"}, Body: "héllo\u2028",
		CreatedAt: "2026-01-01T00:00:00Z", Metadata: json.RawMessage(`{"k":[1,2]}`)}
	raw, err := e.MarshalJSON()
	if err != nil || !json.Valid(raw) {
		t.Fatalf("%s: %v", raw, err)
	}
	var back Event
	if err := back.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, e) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, e)
	}
	empty, err := Event{}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(empty, &m); err != nil {
		t.Fatal(err)
	}
	if m["topic"] != nil || m["status"] != nil || !reflect.DeepEqual(m["artifact_ids"], []any{}) || !reflect.DeepEqual(m["metadata"], map[string]any{}) {
		t.Fatalf("empty event renders %s", empty)
	}
}

// MarshalJSON's first buffer holds an event whose strings need no
// escaping, so rendering it allocates once.
func TestEventMarshalJSONSizeHint(t *testing.T) {
	e := Event{ID: "evt_20261130T094500_0123456789ab", Seq: math.MinInt64, OriginReplica: "rep_0123456789abcdef0123456789abcdef",
		OriginSeq: math.MinInt64, HLC: "0001764495900000-0000000001-rep_0123456789abcdef0123456789abcdef", Type: "task.request",
		Stream: "project/x", Room: "delegation", Topic: "t", FromAgent: "a@host", ToAgent: "b@host", CorrelationID: "corr",
		Branch: "main", BaseCommit: "abc", Status: "open", ArtifactIDs: []string{"art_1", "art_2"}, Body: "body",
		CreatedAt: "2026-11-30T09:45:00.123456Z", Metadata: json.RawMessage(`{"k": 1}`), BodyTruncated: true, BodyLength: math.MinInt}
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > e.jsonSizeHint() {
		t.Fatalf("%d bytes rendered, hint %d", len(b), e.jsonSizeHint())
	}
	// AllocsPerRun counts the whole process's allocations, so one that
	// another goroutine makes meanwhile (the race detector's runtime does,
	// now and then) can push a run over: the best of three runs counts.
	n := testing.AllocsPerRun(20, func() { _, _ = e.MarshalJSON() })
	for try := 1; try < 3 && n > 1; try++ {
		n = min(n, testing.AllocsPerRun(20, func() { _, _ = e.MarshalJSON() }))
	}
	if n > 1 {
		t.Fatalf("%v allocations per MarshalJSON, want 1", n)
	}
}
