package pyrepr

import "testing"

func TestIllFormedAt(t *testing.T) {
	const start, cont, end = "invalid start byte", "invalid continuation byte", "unexpected end of data"
	for _, tc := range []struct {
		in     string
		len    int
		reason string
	}{
		{"\x80", 1, start},
		{"\xc0\xaf", 1, start}, // overlong lead
		{"\xf5\x80", 1, start}, // beyond U+10FFFF
		{"\xc3", 1, end},
		{"\xc3A", 1, cont},
		{"\xe0\x80\x80", 1, cont}, // E0 needs A0..BF next
		{"\xe0\xa0", 2, end},
		{"\xed\xa0\x80", 1, cont}, // a surrogate
		{"\xf0\x90\x80", 3, end},
		{"\xf0\x90\x80A", 3, cont},
		{"\xf4\x90\x80\x80", 1, cont}, // F4 needs 80..8F next
	} {
		got := IllFormedAt(tc.in)
		if got.Len != tc.len || got.Reason != tc.reason {
			t.Errorf("IllFormedAt(%q) = %+v, want %d %q", tc.in, got, tc.len, tc.reason)
		}
		if b := IllFormedAt([]byte(tc.in)); b != got {
			t.Errorf("IllFormedAt([]byte(%q)) = %+v, want %+v", tc.in, b, got)
		}
	}
}
