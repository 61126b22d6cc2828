package pyjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// wtf8 is the WTF-8 of a lone surrogate.
func wtf8(r rune) string { return string(appendWTF8(nil, r)) }

// TestReaderLoneSurrogates: with LoneSurrogates, Value keeps a lone
// surrogate escape as json.loads does (its WTF-8 bytes), in strings and in
// the keys of nested objects; pairs, other escapes and bytes that are not
// UTF-8 decode as encoding/json decodes them, which Value without the
// option does throughout.
func TestReaderLoneSurrogates(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want any
	}{
		{`"a\udcffb"`, "a" + wtf8(0xDCFF) + "b"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD83D\uDE00 \ud800\ud800\udc00"`, "😀 " + wtf8(0xD800) + "\U00010000"},
		{`"\udc00\ud800"`, wtf8(0xDC00) + wtf8(0xD800)},
		{`"\ud800\n\u00e9\"\\\/\b\f\r\t"`, wtf8(0xD800) + "\né\"\\/\b\f\r\t"},
		{"\"\\udcff\xff\xed\xa0\x80\"", wtf8(0xDCFF) + strings.Repeat("\uFFFD", 4)},
		{`{"k\ud800": ["\udfff", 1.5, -0, null, true, {"x": "\u00e9"}], "k\ud800": [], "z": 1e400}`,
			map[string]any{"k" + wtf8(0xD800): []any{}, "z": json.Number("1e400")}},
		{`[{"a": "\udbff"}, {"a": "b", "a": "\udbff"}]`, []any{map[string]any{"a": wtf8(0xDBFF)}, map[string]any{"a": wtf8(0xDBFF)}}},
		{`"\u00e9 no surrogate"`, "é no surrogate"},
	} {
		got, err := Reader{LoneSurrogates: true}.Value([]byte(tc.raw))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %#v, %v; want %#v", tc.raw, got, err, tc.want)
		}
		plain, err := Reader{}.Value([]byte(tc.raw))
		if want, _ := referenceValue([]byte(tc.raw)); err != nil || !reflect.DeepEqual(plain, want) {
			t.Errorf("%s without the option: %#v, %v; want encoding/json's %#v", tc.raw, plain, err, want)
		}
	}
	deep := strings.Repeat("[", 5000) + `"\ud800"` + strings.Repeat("]", 5000)
	if _, err := (Reader{LoneSurrogates: true}).Value([]byte(deep)); err != nil {
		t.Errorf("5000 deep, as encoding/json reads it: %v", err)
	}
}

// surrogatesAsReplacement is v with each WTF-8 lone surrogate made
// U+FFFD, as encoding/json decodes one.
func surrogatesAsReplacement(v any) any {
	switch x := v.(type) {
	case string:
		var b strings.Builder
		for i := 0; i < len(x); {
			if i+3 <= len(x) && x[i] == 0xED && x[i+1] >= 0xA0 && x[i+1] <= 0xBF {
				b.WriteRune(utf8.RuneError)
				i += 3
				continue
			}
			b.WriteByte(x[i])
			i++
		}
		return b.String()
	case []any:
		for i := range x {
			x[i] = surrogatesAsReplacement(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[surrogatesAsReplacement(k).(string)] = surrogatesAsReplacement(e)
		}
		return out
	}
	return v
}

// keysCollide reports whether an object in v has two keys that are the
// same once their lone surrogates are made U+FFFD.
func keysCollide(v any) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if keysCollide(e) {
				return true
			}
		}
	case map[string]any:
		seen := make(map[string]bool, len(x))
		for k, e := range x {
			r := surrogatesAsReplacement(k).(string)
			if seen[r] || keysCollide(e) {
				return true
			}
			seen[r] = true
		}
	}
	return false
}

// FuzzReaderLoneSurrogates holds Value with LoneSurrogates to
// encoding/json: the same value once each lone surrogate it keeps is made
// U+FFFD, and, for a text without a surrogate escape, Value without the
// option.
func FuzzReaderLoneSurrogates(f *testing.F) {
	for _, s := range append(fuzzSeeds, `"\ud800\ud800\udc00"`, `{"\udfff": ["\udbff\u0041"]}`, "\"\\udcff\xff\"", `[["\ud83d\ude00"]]`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = bytes.TrimSpace(raw)
		want, err := referenceValue(raw)
		if err != nil || !json.Valid(raw) {
			return
		}
		got, err := Reader{LoneSurrogates: true}.Value(raw)
		if err != nil {
			t.Fatalf("%q: %v, encoding/json reads %#v", raw, err, want)
		}
		if !hasSurrogateEscape(raw) {
			if plain, _ := (Reader{}).Value(raw); !reflect.DeepEqual(got, plain) {
				t.Fatalf("%q: %#v, without the option %#v", raw, got, plain)
			}
		}
		if keysCollide(got) {
			// Two keys that differ only in their lone surrogates stay two
			// keys, as in Python; encoding/json makes them one. There is
			// no common value to compare.
			return
		}
		if got := surrogatesAsReplacement(got); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v, encoding/json reads %#v", raw, got, want)
		}
	})
}
