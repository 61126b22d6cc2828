package pyjson

import (
	"encoding/json"
	"testing"
	"time"
)

// Expected texts in this file were produced by CPython 3.11's json module
// (json.dumps(json.loads(raw), ...)), whose dicts keep insertion order.

func TestCompact(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"empty_object", "{}", "{}"},
		{"empty_list", "[]", "[]"},
		{"scalar_string", "\"x\\u00e9\\ud83d\\ude00\\u007f\\u0001\"", "\"x\\u00e9\\ud83d\\ude00\\u007f\\u0001\""},
		{"order_kept", "{\"z\": 1, \"a\": {\"y\": [], \"b\": {}}, \"m\": [1, \"two\", null, true, false, 1.50, -0]}", "{\"z\": 1, \"a\": {\"y\": [], \"b\": {}}, \"m\": [1, \"two\", null, true, false, 1.5, 0]}"},
		{"nested_lists", "[[1, [2, []]], {\"k\": [{}]}]", "[[1, [2, []]], {\"k\": [{}]}]"},
		{"non_ascii", "{\"\\u20ac\": \"\\u00e9\\u4e2d\\ud83d\\ude00 \\u2028\", \"ascii\": \"a/b<c>&\"}", "{\"\\u20ac\": \"\\u00e9\\u4e2d\\ud83d\\ude00 \\u2028\", \"ascii\": \"a/b<c>&\"}"},
		{"dup_keeps_first_position", "{\"a\": 1, \"b\": 2, \"a\": 3}", "{\"a\": 3, \"b\": 2}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Compact(json.RawMessage(tt.raw))
			if err != nil || string(got) != tt.want {
				t.Errorf("Compact(%s)\n got %s, %v\nwant %s", tt.raw, got, err, tt.want)
			}
		})
	}
}

func TestDumpsIndent(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"empty_object", "{}", "{}"},
		{"empty_list", "[]", "[]"},
		{"scalar_string", "\"x\\u00e9\\ud83d\\ude00\\u007f\\u0001\"", "\"x\u00e9\U0001f600\x7f\\u0001\""},
		{"order_kept", "{\"z\": 1, \"a\": {\"y\": [], \"b\": {}}, \"m\": [1, \"two\", null, true, false, 1.50, -0]}", "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": [],\n    \"b\": {}\n  },\n  \"m\": [\n    1,\n    \"two\",\n    null,\n    true,\n    false,\n    1.5,\n    0\n  ]\n}"},
		{"nested_lists", "[[1, [2, []]], {\"k\": [{}]}]", "[\n  [\n    1,\n    [\n      2,\n      []\n    ]\n  ],\n  {\n    \"k\": [\n      {}\n    ]\n  }\n]"},
		{"non_ascii", "{\"\\u20ac\": \"\\u00e9\\u4e2d\\ud83d\\ude00 \\u2028\", \"ascii\": \"a/b<c>&\"}", "{\n  \"\u20ac\": \"\u00e9\u4e2d\U0001f600 \u2028\",\n  \"ascii\": \"a/b<c>&\"\n}"},
		{"dup_keeps_first_position", "{\"a\": 1, \"b\": 2, \"a\": 3}", "{\n  \"a\": 3,\n  \"b\": 2\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DumpsIndent(json.RawMessage(tt.raw))
			if err != nil || string(got) != tt.want {
				t.Errorf("DumpsIndent(%s)\n got %s, %v\nwant %s", tt.raw, got, err, tt.want)
			}
		})
	}
}

// eventLike mixes the Go types the store and MCP layer hand over.
func eventLike() Object {
	return Object{
		{"id", "evt_1"},
		{"seq", 7},
		{"n", nil},
		{"f", 2.0},
		{"big", int64(9007199254740993)},
		{"list", []string{"a", "b"}},
		{"map", map[string]any{"b": 1, "a": 2}}, // Go maps come out sorted
		{"obj", Object{{"z", true}, {"a", false}}},
		{"when", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"empty", []any{}},
		{"neg", -1.25e-10},
	}
}

func TestEncodersOnGoValues(t *testing.T) {
	tests := []struct {
		name string
		enc  func(any) ([]byte, error)
		want string
	}{
		{"Compact", Compact, "{\"id\": \"evt_1\", \"seq\": 7, \"n\": null, \"f\": 2.0, \"big\": 9007199254740993, \"list\": [\"a\", \"b\"], \"map\": {\"a\": 2, \"b\": 1}, \"obj\": {\"z\": true, \"a\": false}, \"when\": \"2026-01-02T03:04:05Z\", \"empty\": [], \"neg\": -1.25e-10}"},
		{"DumpsIndent", DumpsIndent, "{\n  \"id\": \"evt_1\",\n  \"seq\": 7,\n  \"n\": null,\n  \"f\": 2.0,\n  \"big\": 9007199254740993,\n  \"list\": [\n    \"a\",\n    \"b\"\n  ],\n  \"map\": {\n    \"a\": 2,\n    \"b\": 1\n  },\n  \"obj\": {\n    \"z\": true,\n    \"a\": false\n  },\n  \"when\": \"2026-01-02T03:04:05Z\",\n  \"empty\": [],\n  \"neg\": -1.25e-10\n}"},
		{"Dumps", Dumps, "{\"big\": 9007199254740993, \"empty\": [], \"f\": 2.0, \"id\": \"evt_1\", \"list\": [\"a\", \"b\"], \"map\": {\"a\": 2, \"b\": 1}, \"n\": null, \"neg\": -1.25e-10, \"obj\": {\"a\": false, \"z\": true}, \"seq\": 7, \"when\": \"2026-01-02T03:04:05Z\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.enc(eventLike())
			if err != nil || string(got) != tt.want {
				t.Errorf("\n got %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}
}

func TestIndentReindentsEmbeddedJSON(t *testing.T) {
	v := Object{{"result", json.RawMessage(`{"b":[1,2],"a":{}}`)}}
	want := "{\n  \"result\": {\n    \"b\": [\n      1,\n      2\n    ],\n    \"a\": {}\n  }\n}"
	got, err := DumpsIndent(v)
	if err != nil || string(got) != want {
		t.Errorf("\n got %s, %v\nwant %s", got, err, want)
	}
}
