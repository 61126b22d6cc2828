package rules

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

func TestMetadata(t *testing.T) {
	const notObject = "metadata must be an object"
	const tooBig = "metadata exceeds maximum size of 65536 bytes"
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"nil", nil, "{}", ""},
		{"empty_map", map[string]any{}, "{}", ""},
		{"sorted", map[string]any{"b": json.Number("1"), "a": []any{"é", nil}}, `{"a": ["é", null], "b": 1}`, ""},
		{"typed_map", map[string]string{"z": "1", "y": "2"}, `{"y": "2", "z": "1"}`, ""},
		{"ordered_object", pyjson.Object{{Key: "b", Value: 1}, {Key: "a", Value: 2}}, `{"a": 2, "b": 1}`, ""},
		{"ack_of", map[string]any{"ack_of": "evt_x"}, `{"ack_of": "evt_x"}`, ""},
		{"raw", json.RawMessage(`{"b":1.0,"a":{"d":"\u00e9","c":[]}}`), `{"a": {"c": [], "d": "é"}, "b": 1.0}`, ""},
		{"raw_bytes", []byte(` {"x": 1} `), `{"x": 1}`, ""},
		{"raw_null", json.RawMessage(" null "), "{}", ""},
		{"raw_empty", json.RawMessage(nil), "{}", ""},
		{"nil_map", map[string]any(nil), "{}", ""},
		{"raw_list", json.RawMessage(`[1]`), "", notObject},
		{"raw_string", json.RawMessage(`"{}"`), "", notObject},
		{"raw_invalid", json.RawMessage(`{"a":`), "", notObject},
		{"string", `{"a": 1}`, "", notObject},
		{"list", []any{map[string]any{}}, "", notObject},
		{"number", json.Number("1"), "", notObject},
		{"bool", true, "", notObject},
		{"int_keys", map[int]any{1: "a"}, "", notObject},
		{"nan", map[string]any{"x": math.NaN()}, "", "metadata is not JSON-serializable: pyjson: unsupported value: NaN has no JSON form"},
		{"at_limit", map[string]any{"k": strings.Repeat("a", 65527)}, `{"k": "` + strings.Repeat("a", 65527) + `"}`, ""},
		{"over_limit", map[string]any{"k": strings.Repeat("a", 65528)}, "", tooBig},
		{"multibyte_over", map[string]any{"k": strings.Repeat("é", 32764)}, "", tooBig},
		{"escapes_count", map[string]any{"k": strings.Repeat("\n", 32764)}, "", tooBig},
		{"raw_over", json.RawMessage(`{"k": "` + strings.Repeat("a", 65528) + `"}`), "", tooBig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Metadata(tt.in)
			checkErr(t, err, tt.wantErr)
			if string(got) != tt.want {
				t.Errorf("Metadata = %.60s; want %.60s", got, tt.want)
			}
		})
	}
}

func FuzzMetadata(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `[]`, `{"b": 1, "a": "é"}`, `{"a": 1e400}`, `{"a": {"b": [1.5, -0]}}`,
		`{"a": 1, "a": 2}`, `"x"`, `{`, `{"k": "\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := Metadata(json.RawMessage(raw))
		if err != nil {
			checkErrIsInvalid(t, err)
			return
		}
		if len(got) > MaxMetadataBytes || !json.Valid(got) || got[0] != '{' {
			t.Fatalf("Metadata(%q) = %q", raw, got)
		}
		again, err := Metadata(json.RawMessage(got))
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("not stable: %q -> %q -> %q, %v", raw, got, again, err)
		}
		// The decoded map (the MCP layer's view) gives the same text.
		dec := json.NewDecoder(bytes.NewReader(got))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("decode %q: %v", got, err)
		}
		if fromMap, err := Metadata(m); err != nil || !bytes.Equal(fromMap, got) {
			t.Fatalf("map form differs: %q vs %q, %v", fromMap, got, err)
		}
	})
}

func TestArtifactIDs(t *testing.T) {
	const bad = "artifact_ids must be a list of artifact id strings"
	tests := []struct {
		name    string
		in      any
		want    []string
		wantErr string
	}{
		{"nil", nil, []string{}, ""},
		{"empty", []any{}, []string{}, ""},
		{"strings", []string{"art_1", "art_2"}, []string{"art_1", "art_2"}, ""},
		{"dedup_first_order", []any{"b", "a", "b", "c", "a"}, []string{"b", "a", "c"}, ""},
		{"not_stripped", []any{" art_1 "}, []string{" art_1 "}, ""},
		{"empty_string", []any{"a", ""}, nil, bad},
		{"empty_go_string", []string{""}, nil, bad},
		{"number_item", []any{"a", json.Number("1")}, nil, bad},
		{"nil_item", []any{nil}, nil, bad},
		{"nested_list", []any{[]any{"a"}}, nil, bad},
		{"string", "art_1", nil, bad},
		{"map", map[string]any{"a": "b"}, nil, bad},
		{"bool", true, nil, bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ArtifactIDs(tt.in)
			checkErr(t, err, tt.wantErr)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") || (tt.wantErr == "" && got == nil) {
				t.Errorf("ArtifactIDs = %#v; want %#v", got, tt.want)
			}
		})
	}
}
