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
