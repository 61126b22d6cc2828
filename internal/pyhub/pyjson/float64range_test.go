package pyjson

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBeyondFloat64(t *testing.T) {
	for raw, want := range map[string]bool{
		`1e400`: true, `-1E+400`: true, `{"a":[1,{"b":1e309}]}`: true, strings.Repeat("9", 310): true,
		`1e308`: false, `1e-400`: false, `-0.0e0`: false, `"1e400"`: false, `{"a\"1e400":"\\"}`: false,
		`{"1e400":2}`: false, strings.Repeat("9", 300): false, `[true,null,false]`: false,
	} {
		if got := BeyondFloat64([]byte(raw)); got != want {
			t.Errorf("%.40s: %v, want %v", raw, got, want)
		}
		var v any
		if decodes := json.Unmarshal([]byte(raw), &v) == nil; decodes == want {
			t.Errorf("%.40s: encoding/json decodes it: %v", raw, decodes)
		}
	}
}

// FuzzBeyondFloat64 holds BeyondFloat64 to encoding/json: a valid JSON
// text holds a number beyond float64 exactly when it does not decode.
func FuzzBeyondFloat64(f *testing.F) {
	for _, seed := range []string{`1e400`, `{"a":["\"",-2e-999,3E+308]}`, `"\\"`, strings.Repeat("1", 400)} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		var v any
		if decodes := json.Unmarshal(raw, &v) == nil; BeyondFloat64(raw) == decodes {
			t.Fatalf("%q: BeyondFloat64 %v, decodes %v", raw, !decodes, decodes)
		}
	})
}
