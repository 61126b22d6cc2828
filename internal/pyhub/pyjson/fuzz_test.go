package pyjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
)

var fuzzSeeds = []string{
	`{}`,
	`{"b": 1, "a": [1.0, 2e5, -0, "x"]}`,
	`{"a": 1, "a": {"c": null, "b": true}}`,
	`{"\ud83d\ude00": "\u2028\u0000", "\uFB33": 1e-7}`,
	`{"big": 123456789012345678901234567890, "f": 1.7976931348623157e308}`,
	`{"s": "\ud800", "t": "é/\\\""}`,
	`[1, 2]`,
	`{"a": 1e400}`,
	`{"a": [[[[{}]]]]}`,
	"{\"k\": \"\xff\"}",
}

// decodeFloats decodes with encoding/json and turns every number into a
// float64: the view in which Python's re-encoding must not change the
// value. (Decoding straight into float64 would fail on a number that
// overflows, even when a later duplicate key discards it.)
func decodeFloats(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json cannot read %q: %v", raw, err)
	}
	return toFloats(v)
}

func toFloats(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case []any:
		for i := range x {
			x[i] = toFloats(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = toFloats(x[k])
		}
	}
	return v
}

func FuzzCanonical(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := Canonical(raw)
		if err != nil {
			return
		}
		again, err := Canonical(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", raw, out, again, err)
		}
		if want, got := decodeFloats(t, raw), decodeFloats(t, out); !reflect.DeepEqual(want, got) {
			t.Fatalf("value changed: %q -> %q", raw, out)
		}
	})
}

// FuzzJCS checks that JCS is idempotent and that every Python-style
// encoding of a value has the same JCS form as the value itself.
func FuzzJCS(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want, err := JCS(raw)
		if err != nil {
			return
		}
		if again, err := JCS(want); err != nil || !bytes.Equal(again, want) {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", raw, want, again, err)
		}
		for name, enc := range map[string]func(any) ([]byte, error){"Dumps": Dumps, "DumpsIndent": DumpsIndent, "Compact": Compact} {
			text, err := enc(json.RawMessage(raw))
			if err != nil {
				t.Fatalf("%s(%q): %v", name, raw, err)
			}
			if got, err := JCS(text); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("JCS(%s(%q)) = %q, %v; want %q", name, raw, got, err, want)
			}
		}
	})
}
