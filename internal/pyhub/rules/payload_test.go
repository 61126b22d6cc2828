package rules

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBody(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"nil", nil, "", ""},
		{"empty", "", "", ""},
		{"verbatim", "  keep\n\tall \r\n", "  keep\n\tall \r\n", ""},
		{"controls_allowed", "a\x01\x1f\x7fb", "a\x01\x1f\x7fb", ""},
		{"number", json.Number("1"), "", "body must be a string"},
		{"bool", false, "", "body must be a string"},
		{"list", []any{}, "", "body must be a string"},
		{"map", map[string]any{}, "", "body must be a string"},
		{"nul", "a\x00b", "", "body contains null bytes"},
		{"nul_beats_size", strings.Repeat("a", MaxBodyBytes) + "\x00", "", "body contains null bytes"},
		{"at_limit", strings.Repeat("a", 262144), strings.Repeat("a", 262144), ""},
		{"over_limit", strings.Repeat("a", 262145), "", "body is 262145 bytes; maximum is 262144 bytes"},
		{"multibyte_at_limit", strings.Repeat("é", 131072), strings.Repeat("é", 131072), ""},
		{"multibyte_over", strings.Repeat("é", 131072) + "a", "", "body is 262145 bytes; maximum is 262144 bytes"},
		{"astral_over", strings.Repeat("😀", 65537), "", "body is 262148 bytes; maximum is 262144 bytes"},
		{"surrogate_replaced", "a\xed\xa0\x80", "a\uFFFD", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Body(tt.in, MaxBodyBytes, "body")
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("Body = %.40q; want %.40q", got, tt.want)
			}
		})
	}
}

func TestBodySizeCountsReplacedSurrogates(t *testing.T) {
	// Python measures after replacing: one U+FFFD (3 bytes) per surrogate.
	in := strings.Repeat("a", 9) + "\xed\xa0\x80"
	if _, err := Body(in, 12, "body"); err != nil {
		t.Fatalf("12 bytes after replacement: %v", err)
	}
	_, err := Body("\xff"+strings.Repeat("a", 10), 12, "note")
	checkErr(t, err, "note is 13 bytes; maximum is 12 bytes")
}

func TestContent(t *testing.T) {
	const empty = "content must be a non-empty string"
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr string
	}{
		{"nil", nil, "", empty},
		{"empty", "", "", empty},
		{"number", json.Number("1"), "", empty},
		{"list", []any{"x"}, "", empty},
		{"blank_allowed", " ", " ", ""},
		{"diff", "--- a\n+++ b\n", "--- a\n+++ b\n", ""},
		{"nul", "\x00", "", "content contains null bytes"},
		{"at_limit", strings.Repeat("a", 4194304), strings.Repeat("a", 4194304), ""},
		{"over_limit", strings.Repeat("a", 4194305), "", "content is 4194305 bytes; maximum is 4194304 bytes"},
		{"multibyte_over", strings.Repeat("中", 1398102), "", "content is 4194306 bytes; maximum is 4194304 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Content(tt.in)
			checkErr(t, err, tt.wantErr)
			if got != tt.want {
				t.Errorf("Content = %.40q; want %.40q", got, tt.want)
			}
		})
	}
}
