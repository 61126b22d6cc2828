package httpapi

import (
	"reflect"
	"testing"
)

// TestParseQuery_PythonParseQsl checks the query reading against what
// dict(urllib.parse.parse_qsl(q)) gives in CPython 3.11.
func TestParseQuery_PythonParseQsl(t *testing.T) {
	tests := []struct {
		raw  string
		want query
	}{
		{"origin=rep_a&after=5", query{"origin": "rep_a", "after": "5"}},
		{"after=%ZZ", query{"after": "%ZZ"}},               // an invalid escape is kept
		{"origin=X;after=5", query{"origin": "X;after=5"}}, // ';' does not split
		{"a=1&a=2", query{"a": "2"}},                       // the last value wins
		{"a=&b=x&c", query{"b": "x"}},                      // blank values and bare names dropped
		{"to_agent=pi%40laptop+x", query{"to_agent": "pi@laptop x"}},
		{"k%3D=v%26w", query{"k=": "v&w"}},
		{"s=%E2%9C%93&t=%FF", query{"s": "✓", "t": "\uFFFD"}},
		// Bytes that are not UTF-8 decode as Python's errors="replace"
		// does: one U+FFFD per maximal ill-formed subsequence.
		{"a=%FF%FF&b=%E2%82&c=%E2%82%E2%82A&d=%ED%A0%80&e=%F0%9F%98&f=%C0%AF&g=%F4%90%80%80",
			query{"a": "\uFFFD\uFFFD", "b": "\uFFFD", "c": "\uFFFD\uFFFDA", "d": "\uFFFD\uFFFD\uFFFD", "e": "\uFFFD",
				"f": "\uFFFD\uFFFD", "g": "\uFFFD\uFFFD\uFFFD\uFFFD"}},
	}
	for _, tc := range tests {
		if got := parseQuery(tc.raw); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseQuery(%q) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}
