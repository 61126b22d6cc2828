package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// tokenParse is the reference for parse: the same value model read through
// encoding/json's token stream (parse's first implementation, slower).
func tokenParse(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := tokenValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the top-level value", ErrSyntax)
	}
	return v, nil
}

func tokenValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= maxDepth {
		return nil, ErrTooDeep
	}
	if delim == '[' {
		list := []any{}
		for dec.More() {
			v, err := tokenValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, wrapSyntax(err)
	}
	obj := Object{}
	index := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, wrapSyntax(err)
		}
		key := tok.(string)
		v, err := tokenValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		if i, dup := index[key]; dup {
			obj[i].Value = v
			continue
		}
		index[key] = len(obj)
		obj = append(obj, Member{Key: key, Value: v})
	}
	_, err = dec.Token()
	return obj, wrapSyntax(err)
}

func wrapSyntax(err error) error {
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	return nil
}

// sameParse fails unless parse and the reference agree on raw: the same
// value, or errors of the same kind.
func sameParse(t *testing.T, raw []byte) {
	t.Helper()
	got, gotErr := parse(raw)
	want, wantErr := tokenParse(raw)
	switch {
	case (gotErr == nil) != (wantErr == nil):
		t.Fatalf("parse(%q): error %v, reference %v", raw, gotErr, wantErr)
	case gotErr != nil:
		if errors.Is(gotErr, ErrTooDeep) != errors.Is(wantErr, ErrTooDeep) || !errors.Is(gotErr, ErrSyntax) && !errors.Is(gotErr, ErrTooDeep) {
			t.Fatalf("parse(%q): error %v, reference %v", raw, gotErr, wantErr)
		}
	case !reflect.DeepEqual(got, want):
		t.Fatalf("parse(%q) = %#v, reference %#v", raw, got, want)
	}
}

func TestParseMatchesReference(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	inputs := append(slices.Clone(fuzzSeeds),
		"", " ", "nul", "true", " false ", "null", "truex", "[true,]", "[,]", "[1 2]", `{"a" 1}`, `{"a":}`, `{"a":1,}`,
		`{a:1}`, `{"a":1}}`, `[1]]`, "0", "-0", "-", "01", "1.", ".5", "+1", "1e", "1e+", "1E-2", "-0.0e0", "1x",
		`"\u12"`, `"\ud800\udc00"`, `"\uDBFF"`, `"a\/b"`, "\"a\tb\"", "\"\x7f\"", "\"\xc3\"", "\"\xed\xa0\x80\"", `"\"`, `"abc`,
		`{"a":1,"b":2,"a":3}`, `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k3":"x","k17":17,"k16":"y"}`,
		"\ufeff{}", "{}\x00", " \t\r\n[ \t\r\n] \t\r\n", deep(1000), deep(1001), deep(1001)[:1001]+"x",
	)
	for _, s := range inputs {
		sameParse(t, []byte(s))
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameParse(t, raw) })
}

// sameTranscode fails unless writing raw straight from its bytes gives
// what encoding its parsed values gives, in every style that transcodes,
// at the top level and nested in an object.
func sameTranscode(t *testing.T, raw []byte) {
	t.Helper()
	v, parseErr := parse(raw)
	for name, s := range map[string]style{"indent": indentStyle, "compact": compactStyle} {
		for _, wrap := range []bool{false, true} {
			var direct, viaValues any = json.RawMessage(raw), v
			if wrap {
				direct = Object{{Key: "k", Value: json.RawMessage(raw)}, {Key: "z", Value: 1}}
				viaValues = Object{{Key: "k", Value: v}, {Key: "z", Value: 1}}
			}
			got, err := encode(direct, s)
			if parseErr != nil {
				if err == nil || errors.Is(err, ErrTooDeep) != errors.Is(parseErr, ErrTooDeep) {
					t.Fatalf("%s(%q), wrapped %v: %q, %v; parse error %v", name, raw, wrap, got, err, parseErr)
				}
				continue
			}
			want, wantErr := encode(viaValues, s)
			if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
				t.Fatalf("%s(%q), wrapped %v: %q, %v; via values %q, %v", name, raw, wrap, got, err, want, wantErr)
			}
		}
	}
}

func TestTranscodeMatchesValues(t *testing.T) {
	many := `{`
	for i := range 40 {
		many += fmt.Sprintf(`"k%d":%d,`, i, i)
	}
	for _, s := range []string{many + `"k3":"again"}`, many + `"k39":0}`, `{"a":1,"\u0061":2}`, `{"é":1,"\u00e9":2}`,
		`{"a":1e400}`, `[1.5, -0, -0.0, 1E+2, 12345678901234567890]`, `{"a":[{"b":{}},[],""]}`, "\"\x7f\u2028\"", `"\u2028"`,
		strings.Repeat("[", 1000) + strings.Repeat("]", 1000), strings.Repeat("[", 999) + strings.Repeat("]", 999)} {
		sameTranscode(t, []byte(s))
	}
	for _, s := range fuzzSeeds {
		sameTranscode(t, []byte(s))
	}
	// A stored event's JSON is written straight, not via values.
	for _, s := range []style{indentStyle, compactStyle} {
		e := &encoder{style: s}
		if err := e.transcode(benchEvent); err != nil {
			t.Fatalf("event not transcoded: %v", err)
		}
	}
}

func FuzzTranscode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { sameTranscode(t, raw) })
}
