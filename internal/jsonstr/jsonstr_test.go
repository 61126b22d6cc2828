package jsonstr

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// encodingJSONString is a Go string as encoding/json writes it, with or
// without HTML escaping.
func encodingJSONString(t testing.TB, s string, html bool) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var cases = []string{
	"", "plain", `quote " backslash \ slash /`, "\b\f\n\r\t\x00\x01\x1f\x7f",
	"<a href='x'>&amp;</a>", "é ü 🙂 \u2028 \u2029 \u2027 \u202a", "\xff bad \xc3 utf-8 \xed\xa0\x80",
	"{\n  \"success\": true\n}",
}

// TestAppend: a text given as a []byte is written as encoding/json
// writes it, HTML escaped or not.
func TestAppend(t *testing.T) {
	for _, s := range cases {
		for _, html := range []bool{true, false} {
			got := Append([]byte("x"), []byte(s), html)
			if want := append([]byte("x"), encodingJSONString(t, s, html)...); !bytes.Equal(got, want) {
				t.Errorf("%q html=%v: %s, want %s", s, html, got, want)
			}
		}
	}
}

// TestAppend_StringMatchesEncodingJSON: a text given as a string, the
// store's rows, is written as encoding/json (HTML unescaped) writes it.
func TestAppend_StringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", `q"uote`, `back\\slash`, "tab\tnl\ncr\r", "\x00\x01\x1f", "del\x7f",
		"<html> & 'x'", "héllo wörld", "line\u2028sep\u2029", "bad \xff utf8", "emoji 🙂"}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab\"\\\n\t<>&\x00\x7f\xc3\xa9\xe2\x80\xa8 ")
	for range 2000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want := encodingJSONString(t, s, false)
		if got := Append([]byte("x"), s, false); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("%q: got %s, want %s", s, got[1:], want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range cases {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		want := encodingJSONString(t, s, html)
		if got := Append(nil, []byte(s), html); !bytes.Equal(got, want) {
			t.Fatalf("%q html=%v: []byte: %s, want %s", s, html, got, want)
		}
		if got := Append(nil, s, html); !bytes.Equal(got, want) {
			t.Fatalf("%q html=%v: string: %s, want %s", s, html, got, want)
		}
	})
}
