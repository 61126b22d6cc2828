package pyjson

import "testing"

// BenchmarkParseEvent parses a stored event's JSON, as every tool result
// and SSE frame that carries events does before re-encoding it.
func BenchmarkParseEvent(b *testing.B) {
	event := []byte(`{"id":"evt_01JDZ5T0Q9W3M2K7XH4N8C6B1A","seq":123456,"origin_replica":"rep_4f3a9c2e1b7d","origin_seq":98765,` +
		`"hlc":"0001732924800000.0000.rep_4f3a9c2e1b7d","type":"task.request","stream":"project/bench","room":"delegation","topic":null,` +
		`"from_agent":"bench","to_agent":"peer","correlation_id":"corr_1","branch":null,"base_commit":null,"status":"open",` +
		`"artifact_ids":[],"body":"hello, a body of a few words with \"quotes\" and é","created_at":"2026-11-30T04:00:00.123456Z","metadata":{"k":[1,2.5,"x"]}}`)
	for b.Loop() {
		if _, err := parse(event); err != nil {
			b.Fatal(err)
		}
	}
}
