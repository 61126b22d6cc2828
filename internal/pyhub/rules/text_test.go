package rules

import (
	"strings"
	"testing"
)

// pySpaces is every character CPython 3.11's str.isspace() accepts.
const pySpaces = "\t\n\v\f\r\x1c\x1d\x1e\x1f \u0085\u00a0\u1680" +
	"\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" +
	"\u2028\u2029\u202f\u205f\u3000"

func TestPyStrip(t *testing.T) {
	if got := pyStrip(pySpaces + "x y" + pySpaces); got != "x y" {
		t.Errorf("pyStrip left %q", got)
	}
	// Not whitespace to Python: zero-width space, BOM, Mongolian vowel
	// separator, NUL, U+007F.
	for _, keep := range []string{"\u200b", "\ufeff", "\u180e", "\x00", "\x7f"} {
		if got := pyStrip(keep + "x" + keep); got != keep+"x"+keep {
			t.Errorf("pyStrip(%q) = %q; want it unchanged", keep+"x"+keep, got)
		}
	}
	for _, r := range pySpaces {
		if !isPySpace(r) {
			t.Errorf("isPySpace(%U) = false", r)
		}
	}
}

func TestFixSurrogates(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain é", "plain é"},
		{"a\xed\xa0\x80b", "a\uFFFDb"},                 // one encoded surrogate: one U+FFFD
		{"\xed\xbf\xbf", "\uFFFD"},                     // last low surrogate
		{"a\xffb", "a\uFFFDb"},                         // stray byte
		{"\xed\x9f\xbf", "\ud7ff"},                     // U+D7FF is valid
		{"\xed\xa0", "\uFFFD\uFFFD"},                   // truncated
		{"x\xed\xa0\x80\xed\xb0\x80", "x\uFFFD\uFFFD"}, // CESU-8 pair: two lone halves
	}
	for _, tt := range tests {
		if got := fixSurrogates(tt.in); got != tt.want {
			t.Errorf("fixSurrogates(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestPyLower(t *testing.T) {
	if got := pyLower("İSTANBUL Kelvin\u212a"); got != "i\u0307stanbul kelvink" {
		t.Errorf("pyLower = %q", got)
	}
	if got := pyLower("ÀSC\xed\xb3\xbfDÉ\xed\xa0\x80"); got != "àsc\xed\xb3\xbfdé\xed\xa0\x80" {
		t.Errorf("pyLower kept no lone surrogate: %q", got)
	}
	if strings.ToLower("\u0130") == pyLower("\u0130") {
		t.Errorf("U+0130 should lower to two code points, as in Python")
	}
}
