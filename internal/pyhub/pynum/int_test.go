package pynum

import (
	"math/big"
	"testing"
)

func TestInt64(t *testing.T) {
	good := map[string]int64{"0": 0, " 42 ": 42, "+7": 7, "-3": -3, "1_000": 1000, "99999999999999999999": 1<<63 - 1,
		// Python's int() reads any decimal digit, and Unicode spaces around it.
		"\u0661": 1, "\uff11\uff12": 12, "1_\u0660": 10, "\U0001D7FF": 9, "\u00a0-\u0663\u3000": -3}
	for in, want := range good {
		if got, err := Int64(in); err != nil || got != want {
			t.Errorf("Int64(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", " ", "1.5", "1__0", "_1", "1_", "0x10", "abc", "+", "1 2", " 1\x1c", "\x1f2", "\u00b2", "\u0661\u00b2"} {
		if _, err := Int64(in); err == nil {
			t.Errorf("Int64(%q) accepted", in)
		}
	}
}

// TestIntError: the text of CPython 3.11's ValueError, the input quoted
// by repr().
func TestIntError(t *testing.T) {
	for in, want := range map[string]string{
		"abc":  "invalid literal for int() with base 10: 'abc'",
		"it's": `invalid literal for int() with base 10: "it's"`,
		" 1.5": "invalid literal for int() with base 10: ' 1.5'",
	} {
		if _, err := Int64(in); err == nil || err.Error() != want {
			t.Errorf("Int64(%q) error %v, want %q", in, err, want)
		}
	}
}

func TestBigInt(t *testing.T) {
	for in, want := range map[string]string{
		"123456789012345678901234567890": "123456789012345678901234567890",
		" -0_0 ":                         "0", "+\uff17": "7", "-1_000": "-1000",
	} {
		n, ok := BigInt(in)
		if w, _ := new(big.Int).SetString(want, 10); !ok || n.Cmp(w) != 0 {
			t.Errorf("BigInt(%q) = %v, %v; want %s", in, n, ok, want)
		}
	}
	for _, in := range []string{"", "1.0", "1__0", "_1", "0x1"} {
		if _, ok := BigInt(in); ok {
			t.Errorf("BigInt(%q) accepted", in)
		}
	}
}
