package pyjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The values and texts are CPython 3.11's json.loads of each text (a
// lone surrogate, which a Go string cannot hold, reads as U+FFFD).
func TestLoads(t *testing.T) {
	v, err := Loads([]byte(`{"a": [1, 2.5, -0, 1e3, NaN, -Infinity, "\ud83d\ude00", null, true], "a": {"b": "\ud800x"}, "c": []}`))
	want := map[string]any{"a": map[string]any{"b": "\uFFFDx"}, "c": []any{}}
	if err != nil || !reflect.DeepEqual(v, want) {
		t.Fatalf("Loads = %#v, %v; want %#v", v, err, want)
	}
	v, err = Loads([]byte("[1, 2.5, -0, 1e3, NaN, -Infinity]\r\n"))
	want2 := []any{json.Number("1"), json.Number("2.5"), json.Number("-0"), json.Number("1e3"), json.Number("NaN"), json.Number("-Infinity")}
	if err != nil || !reflect.DeepEqual(v, want2) {
		t.Fatalf("Loads = %#v, %v; want %#v", v, err, want2)
	}
	for in, text := range map[string]string{
		"[1.]":        "Expecting ',' delimiter: line 1 column 3 (char 2)",
		`{"a": 01}`:   "Expecting ',' delimiter: line 1 column 8 (char 7)",
		"[-]":         "Expecting value: line 1 column 2 (char 1)",
		"-Infinityx":  "Extra data: line 1 column 10 (char 9)",
		"\"é\r\nx":    "Invalid control character at: line 1 column 3 (char 2)",
		"[\"é\",\r\n": "Expecting value: line 2 column 1 (char 6)",
		"\xff":        "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
	} {
		if _, err := Loads([]byte(in)); err == nil || err.Error() != text {
			t.Errorf("Loads(%q) error %v, want %q", in, err, text)
		}
	}
}
