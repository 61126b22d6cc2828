package pyhttp

import (
	"reflect"
	"testing"
)

// TestParseQSL checks the query reading against what
// dict(urllib.parse.parse_qsl(q)) gives in CPython 3.11.
func TestParseQSL(t *testing.T) {
	tests := []struct {
		raw  string
		want map[string]string
	}{
		{"origin=rep_a&after=5", map[string]string{"origin": "rep_a", "after": "5"}},
		{"after=%ZZ", map[string]string{"after": "%ZZ"}},               // an invalid escape is kept
		{"origin=X;after=5", map[string]string{"origin": "X;after=5"}}, // ';' does not split
		{"a=1&a=2", map[string]string{"a": "2"}},                       // the last value wins
		{"a=&b=x&c", map[string]string{"b": "x"}},                      // blank values and bare names dropped
		{"to_agent=pi%40laptop+x", map[string]string{"to_agent": "pi@laptop x"}},
		{"k%3D=v%26w", map[string]string{"k=": "v&w"}},
		{"s=%E2%9C%93&t=%FF", map[string]string{"s": "✓", "t": "\uFFFD"}},
		// Bytes that are not UTF-8 decode as Python's errors="replace"
		// does: one U+FFFD per maximal ill-formed subsequence.
		{"a=%FF%FF&b=%E2%82&c=%E2%82%E2%82A&d=%ED%A0%80&e=%F0%9F%98&f=%C0%AF&g=%F4%90%80%80",
			map[string]string{"a": "\uFFFD\uFFFD", "b": "\uFFFD", "c": "\uFFFD\uFFFDA", "d": "\uFFFD\uFFFD\uFFFD", "e": "\uFFFD",
				"f": "\uFFFD\uFFFD", "g": "\uFFFD\uFFFD\uFFFD\uFFFD"}},
	}
	for _, tc := range tests {
		if got := ParseQSL(tc.raw); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseQSL(%q) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}

// TestURLEncode checks the parameters against CPython 3.11's
// urllib.parse.urlencode of the same dict.
func TestURLEncode(t *testing.T) {
	got := URLEncode(Param{"origin", "rep_a b"}, Param{"id", "art/é&x=~_.-"}, Param{"after", "0"})
	if want := "origin=rep_a+b&id=art%2F%C3%A9%26x%3D~_.-&after=0"; got != want {
		t.Errorf("URLEncode = %q, want %q", got, want)
	}
	if got := URLEncode(); got != "" {
		t.Errorf("URLEncode() = %q", got)
	}
}
