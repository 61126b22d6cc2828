package pyjson

import (
	"encoding/json"
	"testing"
)

// benchEvent is a stored event's JSON as store.Event.MarshalJSON writes it.
var benchEvent = []byte(`{"id":"evt_01JDZ5T0Q9W3M2K7XH4N8C6B1A","seq":123456,"origin_replica":"rep_4f3a9c2e1b7d","origin_seq":98765,` +
	`"hlc":"0001732924800000.0000.rep_4f3a9c2e1b7d","type":"task.request","stream":"project/bench","room":"delegation","topic":null,` +
	`"from_agent":"bench","to_agent":"peer","correlation_id":"corr_1","branch":null,"base_commit":null,"status":"open",` +
	`"artifact_ids":[],"body":"hello, a body of a few words with \"quotes\" and é","created_at":"2026-11-30T04:00:00.123456Z","metadata":{"k":[1,2.5,"x"]}}`)

// BenchmarkParseEvent parses a stored event's JSON into values.
func BenchmarkParseEvent(b *testing.B) {
	for b.Loop() {
		if _, err := parse(benchEvent); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDumpsIndentEvent renders a stored event's JSON as a tool result
// does: in Python's indent=2 style, straight from its bytes.
func BenchmarkDumpsIndentEvent(b *testing.B) {
	for b.Loop() {
		if _, err := DumpsIndent(json.RawMessage(benchEvent)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompactEvent renders a stored event's JSON as an SSE frame
// does: json.dumps(event), ASCII only, straight from its bytes.
func BenchmarkCompactEvent(b *testing.B) {
	for b.Loop() {
		if _, err := Compact(json.RawMessage(benchEvent)); err != nil {
			b.Fatal(err)
		}
	}
}
