package pyjson

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// Expected texts in this file were produced by CPython 3.11's json module
// on the same input.

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"empty", "{}", "{}"},
		{"sorted_nested", "{\"b\": {\"z\": 1, \"a\": [3, {\"y\": null, \"x\": true}]}, \"a\": false}", "{\"a\": false, \"b\": {\"a\": [3, {\"x\": true, \"y\": null}], \"z\": 1}}"},
		{"whitespace", " \n\t{ \"a\" : 1 }\r\n ", "{\"a\": 1}"},
		{"dup_last_wins", "{\"a\": 1, \"b\": 2, \"a\": 3}", "{\"a\": 3, \"b\": 2}"},
		{"non_ascii_raw", "{\"k\\u00e9\": \"\\u00e9\\u4e2d\\ud83d\\ude00\", \"\\u20ac\": 1}", "{\"k\u00e9\": \"\u00e9\u4e2d\U0001f600\", \"\u20ac\": 1}"},
		{"utf8_input", "{\"\u043a\u043b\u044e\u0447\": \"\u0437\u043d\u0430\u0447\u0435\u043d\u0438\u0435\", \"\u65e5\u672c\": \"\u8a9e\"}", "{\"\u043a\u043b\u044e\u0447\": \"\u0437\u043d\u0430\u0447\u0435\u043d\u0438\u0435\", \"\u65e5\u672c\": \"\u8a9e\"}"},
		{"escapes", "{\"s\": \"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t \\u0000\\u001f\\u007f\\u0080 \\u2028\\u2029 <>&\"}", "{\"s\": \"q\\\" b\\\\ s/ \\b\\f\\n\\r\\t \\u0000\\u001f\x7f\u0080 \u2028\u2029 <>&\"}"},
		{"astral_vs_bmp_keys", "{\"\\ufb33\": 1, \"\\ud83d\\ude00\": 2, \"\\ue000\": 3, \"z\": 4, \"\": 5}", "{\"\": 5, \"z\": 4, \"\ue000\": 3, \"\ufb33\": 1, \"\U0001f600\": 2}"},
		{"big_ints", "{\"a\": 123456789012345678901234567890, \"b\": -98765432109876543210, \"c\": -0, \"d\": 0}", "{\"a\": 123456789012345678901234567890, \"b\": -98765432109876543210, \"c\": 0, \"d\": 0}"},
		{"floats", "{\"a\": 1.0, \"b\": 0.1, \"c\": 1e-5, \"d\": 1e16, \"e\": 123456789012345.0, \"f\": -0.0, \"g\": 1E2, \"h\": 2.5e-4, \"i\": 1.5e300, \"j\": 1e-400, \"k\": 9007199254740993.0, \"l\": 0.30000000000000004, \"m\": 1e+22, \"n\": 1.7976931348623157e308, \"o\": 5e-324, \"p\": -1.5E-7}", "{\"a\": 1.0, \"b\": 0.1, \"c\": 1e-05, \"d\": 1e+16, \"e\": 123456789012345.0, \"f\": -0.0, \"g\": 100.0, \"h\": 0.00025, \"i\": 1.5e+300, \"j\": 0.0, \"k\": 9007199254740992.0, \"l\": 0.30000000000000004, \"m\": 1e+22, \"n\": 1.7976931348623157e+308, \"o\": 5e-324, \"p\": -1.5e-07}"},
		{"literals", "{\"t\": true, \"f\": false, \"n\": null, \"l\": [], \"o\": {}}", "{\"f\": false, \"l\": [], \"n\": null, \"o\": {}, \"t\": true}"},
		{"escaped_key", "{\"\\u0041\\n\": 1}", "{\"A\\n\": 1}"},
		{"deep_list", "{\"a\": [[[[1, [2.50]]]], {\"b\": [{}]}]}", "{\"a\": [[[[1, [2.5]]]], {\"b\": [{}]}]}"},
		{"lone_surrogate_escape", `{"a": "\ud800x"}`, "{\"a\": \"\uFFFDx\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonical([]byte(tt.raw))
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tt.raw, err)
			}
			if string(got) != tt.want {
				t.Errorf("Canonical(%q)\n got %s\nwant %s", tt.raw, got, tt.want)
			}
		})
	}
}

func TestCanonicalErrors(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	tests := []struct {
		name, raw string
		want      error
	}{
		{"empty", "", ErrSyntax},
		{"blank", "  \n", ErrSyntax},
		{"array", "[1, 2]", ErrNotObject},
		{"string", `"x"`, ErrNotObject},
		{"number", "1", ErrNotObject},
		{"null", "null", ErrNotObject},
		{"truncated", `{"a": 1`, ErrSyntax},
		{"trailing_data", `{"a": 1} {}`, ErrSyntax},
		{"trailing_comma", `{"a": 1,}`, ErrSyntax},
		{"number_key", `{1: 2}`, ErrSyntax},
		{"single_quotes", `{'a': 1}`, ErrSyntax},
		{"nan_literal", `{"a": NaN}`, ErrSyntax},
		{"leading_zero", `{"a": 01}`, ErrSyntax},
		{"raw_control_in_string", "{\"a\": \"x\ny\"}", ErrSyntax},
		{"float_overflow", `{"a": 1e400}`, ErrUnsupported},
		{"too_deep", `{"a": ` + deep + `}`, ErrTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonical([]byte(tt.raw))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Canonical(%q) = %q, %v; want %v", tt.raw, got, err, tt.want)
			}
		})
	}
}

func TestDumpsGoValues(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, "null"},
		{"int", 42, "42"},
		{"int64_max", int64(math.MaxInt64), "9223372036854775807"},
		{"uint64_max", uint64(math.MaxUint64), "18446744073709551615"},
		{"int8", int8(-7), "-7"},
		{"float_whole", 2.0, "2.0"},
		{"float32", float32(0.1), "0.1"},
		{"negative_zero", math.Copysign(0, -1), "-0.0"},
		{"bool", true, "true"},
		{"strings", []string{"b", "a"}, `["b", "a"]`},
		{"nil_slice", []string(nil), "null"},
		{"nil_map", map[string]any(nil), "null"},
		{"nil_list", []any(nil), "null"},
		{"empty_map", map[string]int{}, "{}"},
		{"typed_map", map[string]int{"b": 2, "a": 1}, `{"a": 1, "b": 2}`},
		{"object_sorted", Object{{"b", 1}, {"a", Object{{"d", 1}, {"c", 2}}}}, `{"a": {"c": 2, "d": 1}, "b": 1}`},
		{"raw_message", json.RawMessage(`{"b":[1.0,{"d":1,"c":2}],"a":"é"}`), `{"a": "é", "b": [1.0, {"c": 2, "d": 1}]}`},
		{"nil_raw_message", json.RawMessage(nil), "null"},
		{"marshaler", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), `"2026-01-02T03:04:05Z"`},
		{"nil_marshaler", (*time.Time)(nil), "null"},
		{"pointer", ptr("x"), `"x"`},
		{"struct_via_encoding_json", struct {
			B int    `json:"b"`
			A string `json:"a"`
		}{1, "x"}, `{"a": "x", "b": 1}`},
		{"bytes_base64", []byte("hi"), `"aGk="`},
		{"named_string", kind("note"), `"note"`},
		{"array", [2]int{1, 2}, "[1, 2]"},
		{"invalid_utf8", "a\xffb", "\"a\uFFFDb\""},
		{"invalid_utf8_key", map[string]any{"\xff": 1, "z": 2}, "{\"z\": 2, \"\uFFFD\": 1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Dumps(tt.v)
			if err != nil {
				t.Fatalf("Dumps: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Dumps\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

type kind string

func ptr[T any](v T) *T { return &v }

func TestDumpsErrors(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	tests := []struct {
		name string
		v    any
		want error
	}{
		{"nan", math.NaN(), ErrUnsupported},
		{"inf", math.Inf(1), ErrUnsupported},
		{"nested_inf", map[string]any{"a": []any{math.Inf(-1)}}, ErrUnsupported},
		{"int_keys", map[int]string{1: "a"}, ErrUnsupported},
		{"channel", make(chan int), ErrUnsupported},
		{"func", func() {}, ErrUnsupported},
		{"bad_number", json.Number("1x"), ErrSyntax},
		{"number_overflow", json.Number("-1e999"), ErrUnsupported},
		{"bad_raw", json.RawMessage(`{"a"`), ErrSyntax},
		{"cycle", cyclic, ErrTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Dumps(tt.v)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Dumps = %q, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// AppendCompact writes what Compact writes, after what dst holds, and
// leaves dst as it was when the text cannot be written.
func TestAppendCompact(t *testing.T) {
	for _, raw := range []string{string(benchEvent), `{"a": [1, 2.50, "é"], "b": {}}`, `"x"`, `{"a":1,"a":2}`} {
		want, err := Compact(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendCompact([]byte("prefix "), []byte(raw))
		if err != nil || string(got) != "prefix "+string(want) {
			t.Errorf("AppendCompact(%s) = %q, %v; want %q", raw, got, err, "prefix "+string(want))
		}
	}
	dst := []byte("prefix ")
	if got, err := AppendCompact(dst, []byte(`{"a": `)); err == nil || string(got) != "prefix " {
		t.Errorf("invalid text: %q, %v; want the prefix alone and an error", got, err)
	}
}
