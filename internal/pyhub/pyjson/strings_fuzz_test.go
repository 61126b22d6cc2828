package pyjson

import "testing"

// appendStringByRune is appendString one rune at a time, the reference
// its bulk copying of printable runs is held to.
func appendStringByRune(dst []byte, s string, ascii bool) []byte {
	dst = append(dst, '"')
	for _, r := range s {
		dst = appendRune(dst, r, ascii)
	}
	return append(dst, '"')
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b\c`, "tab\there\n", "é and 😀", "\x7f\x80\xff", "ends in \\", "\x00\x1f ~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, ascii := range []bool{false, true} {
			got, want := appendString(nil, s, ascii), appendStringByRune(nil, s, ascii)
			if string(got) != string(want) {
				t.Fatalf("appendString(%q, ascii=%v) = %s, want %s", s, ascii, got, want)
			}
		}
	})
}
