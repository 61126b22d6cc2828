package pyrepr

import (
	"encoding/json"
	"testing"
)

// The expected texts are CPython 3.11's repr() of each input.
func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `''`},
		{"x", `'x'`},
		{"it's", `"it's"`},
		{`a'b"c`, `'a\'b"c'`},
		{`say "hi"`, `'say "hi"'`},
		{"tab\there", `'tab\there'`},
		{"nl\n", `'nl\n'`},
		{"cr\r", `'cr\r'`},
		{"\x00\x1f", `'\x00\x1f'`},
		{"\x7f", `'\x7f'`},
		{`back\slash`, `'back\\slash'`},
		{"é", `'é'`},
		{"\u00a0", `'\xa0'`},
		{"\u00ad", `'\xad'`},
		{"\u2028", `'\u2028'`},
		{"\u200b", `'\u200b'`},
		{"\ufeff", `'\ufeff'`},
		{"\U0001F600", "'\U0001F600'"},
		{"\U000E0001", `'\U000e0001'`},
		{"日本", `'日本'`},
		{"", "''"},
		{"abc", "'abc'"},
		{"it's", "\"it's\""},
		{"say \"hi\"", "'say \"hi\"'"},
		{"both ' and \"", "'both \\' and \"'"},
		{"back\\slash", "'back\\\\slash'"},
		{"tab\tnl\ncr\r", "'tab\\tnl\\ncr\\r'"},
		{"\x00\x01\x1f\x7f", "'\\x00\\x01\\x1f\\x7f'"},
		{"\u0080\u0085\u009f\u00a0\u00ad\u00ff", "'\\x80\\x85\\x9f\\xa0\\xad\u00ff'"},
		{"caf\u00e9 \u4e2d\u6587", "'caf\u00e9 \u4e2d\u6587'"},
		{"\u200b\u200e\u2028\u2029\u3000\ufeff", "'\\u200b\\u200e\\u2028\\u2029\\u3000\\ufeff'"},
		{"\U0001f600\U000e0001\U0010ffff\ue000", "'\U0001f600\\U000e0001\\U0010ffff\\ue000'"},
		{"e\u0301", "'e\u0301'"},
		{"\u0378", "'\\u0378'"},
		{"'\"", "'\\'\"'"},
		{"\ud7ff\uffff", "'\\ud7ff\\uffff'"},
		{"bad \xff utf-8", `'bad \xff utf-8'`},
		{"a\xed\xb3\xbfb", `'a\udcffb'`},               // a lone surrogate, as WTF-8
		{"\xed\xa0\x80\xed\xbf\xbf", `'\ud800\udfff'`}, // two lone halves
		{"\xed\x9f\xbf", `'\ud7ff'`},                   // U+D7FF is no surrogate
		{"\xed\xa0", `'\xed\xa0'`},                     // a cut one is invalid bytes
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// The expected values are CPython 3.11's bool() of each value as
// json.loads decodes it.
func TestTruthy(t *testing.T) {
	tests := []struct {
		in   any
		want bool
	}{
		{nil, false}, {false, false}, {true, true},
		{"", false}, {"0", true}, {" ", true},
		{json.Number("0"), false}, {json.Number("0.0"), false}, {json.Number("-0"), false},
		{json.Number("1"), true}, {json.Number("1e-400"), false}, {json.Number("1e400"), true},
		{0, false}, {int64(2), true}, {0.0, false}, {0.5, true},
		{[]any{}, false}, {[]any{nil}, true},
		{map[string]any{}, false}, {map[string]any{"a": nil}, true},
	}
	for _, tt := range tests {
		if got := Truthy(tt.in); got != tt.want {
			t.Errorf("Truthy(%#v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
