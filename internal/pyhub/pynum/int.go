package pynum

import (
	"errors"
	"math"
	"math/big"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
)

// intDigits reads s as Python's int(s) reads decimal text and returns its
// sign and its ASCII digits, underscores removed; ok is false where
// int() raises.
func intDigits(s string) (neg bool, digits string, ok bool) {
	neg, t := cutSign(text(s))
	if t == "" || digitPart(t, 0) != len(t) {
		return false, "", false
	}
	return neg, strings.ReplaceAll(t, "_", ""), true
}

// intError is Python's ValueError text for int(s).
func intError(s string) error {
	return errors.New("invalid literal for int() with base 10: " + pyrepr.String(s))
}

// Int64 is Python's int(s) for decimal text. Values beyond int64
// saturate at ±math.MaxInt64 (Python ints do not overflow; every caller
// bounds the value anyway). The error text is Python's ValueError text.
func Int64(s string) (int64, error) {
	neg, digits, ok := intDigits(s)
	if !ok {
		return 0, intError(s)
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		d := int64(digits[i] - '0')
		if n > (math.MaxInt64-d)/10 {
			n = math.MaxInt64
		} else {
			n = n*10 + d
		}
	}
	if neg {
		n = -n
	}
	return n, nil
}

// BigInt is Python's int(s) for decimal text, exact at any size; false
// where int() raises.
func BigInt(s string) (*big.Int, bool) {
	neg, digits, ok := intDigits(s)
	if !ok {
		return nil, false
	}
	n, _ := new(big.Int).SetString(digits, 10) // digits are ASCII decimal digits
	if neg {
		n.Neg(n)
	}
	return n, true
}
