package pyjson

import (
	"errors"
	"testing"
)

// Expected texts in this file come from RFC 8785 §3.2.2 and §3.2.3 and,
// for the rest, from Node: keys sorted with Array.prototype.sort (UTF-16
// code units), leaves written by JSON.stringify.

func TestJCS(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"rfc_3_2_2", "{\n  \"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n  \"literals\": [null, true, false]\n}", "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}"},
		{"rfc_3_2_3_sorting", "{\"\\u20ac\": \"Euro Sign\", \"\\r\": \"Carriage Return\", \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\", \"1\": \"One\", \"\\ud83d\\ude00\": \"Emoji: Grinning Face\", \"\\u0080\": \"Control\", \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"}", "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001f600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
		{"nested", "{\"b\": [{\"z\": 1, \"y\": [2, {\"d\": null, \"c\": true}]}], \"a\": {\"k\": -0, \"j\": 1.0, \"i\": 1e21, \"h\": 1e-7}}", "{\"a\":{\"h\":1e-7,\"i\":1e+21,\"j\":1,\"k\":0},\"b\":[{\"y\":[2,{\"c\":true,\"d\":null}],\"z\":1}]}"},
		{"big_int_rounds", "[9007199254740993, 123456789012345678901234567890, -0.0]", "[9007199254740992,1.2345678901234568e+29,0]"},
		{"escapes", "\"\\u0000\\u001f\\u007f\\u2028 \\/ \\b\\f\\n\\r\\t <>&\"", "\"\\u0000\\u001f\x7f\u2028 / \\b\\f\\n\\r\\t <>&\""},
		{"surrogate_keys", "{\"\\ud800\\udc00\": 1, \"\\uffff\": 2, \"\\ud83d\\ude00\": 3, \"\\ue000\": 4}", "{\"\U00010000\":1,\"\U0001f600\":3,\"\ue000\":4,\"\uffff\":2}"},
		{"scalars", "[true, false, null, \"\", 0, -1.5]", "[true,false,null,\"\",0,-1.5]"},
		{"duplicate_last_wins", `{"a": 1, "a": 2}`, `{"a":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JCS([]byte(tt.raw))
			if err != nil || string(got) != tt.want {
				t.Fatalf("JCS(%s)\n got %s, %v\nwant %s", tt.raw, got, err, tt.want)
			}
			again, err := JCS(got)
			if err != nil || string(again) != string(got) {
				t.Errorf("JCS is not idempotent: %s -> %s, %v", got, again, err)
			}
		})
	}
}

func TestJCSErrors(t *testing.T) {
	for raw, want := range map[string]error{
		``:           ErrSyntax,
		`{"a":}`:     ErrSyntax,
		`[1] [2]`:    ErrSyntax,
		`[1e999]`:    ErrUnsupported,
		`[-1e999]`:   ErrUnsupported,
		`Infinity`:   ErrSyntax,
		"[\"\x01\"]": ErrSyntax,
	} {
		if got, err := JCS([]byte(raw)); !errors.Is(err, want) {
			t.Errorf("JCS(%q) = %q, %v; want %v", raw, got, err, want)
		}
	}
}

func TestCompareUTF16(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "a", -1},
		{"a", "", 1},
		{"ab", "ac", -1},
		{"\U0001F600", "\uFB33", -1}, // D83D < FB33, though U+1F600 > U+FB33
		{"\uE000", "\U00010000", 1},  // E000 > D800
		{"\U00010000", "\U0001F600", -1},
		{"\U0001F601", "\U0001F600", 1}, // same high surrogate
		{"\uD7FF", "\U00010000", -1},
		{"x\U0001F600", "x\uFFFF", -1},
	}
	for _, tt := range tests {
		if got := compareUTF16(tt.a, tt.b); sign(got) != tt.want {
			t.Errorf("compareUTF16(%q, %q) = %d; want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
