package pynum

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
)

// Float is Python's float(s) of a text: an optional sign, then a decimal
// number (digitparts around an optional point, an optional exponent) or
// inf, infinity or nan in any case. A number too large for a float is an
// infinity and one too small a zero, as in Python; hexadecimal, which Go
// reads, is refused. The error text is Python's ValueError text.
func Float(s string) (float64, error) {
	neg, t := cutSign(text(s))
	switch strings.ToLower(t) {
	case "inf", "infinity":
		if neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	if !decimalSyntax(t) {
		return 0, errors.New("could not convert string to float: " + pyrepr.String(s))
	}
	f, _ := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64) // the syntax is checked; out of range is ±Inf or 0
	if neg {
		f = -f
	}
	return f, nil
}

// decimalSyntax reports whether t is Python's numeric_string without its
// sign: digitpart ["." [digitpart]] or "." digitpart, then an optional
// exponent, e or E, a sign, a digitpart.
func decimalSyntax(t string) bool {
	i := digitPart(t, 0)
	whole := i > 0
	if i < len(t) && t[i] == '.' {
		j := digitPart(t, i+1)
		if !whole && j == i+1 {
			return false
		}
		i = j
	} else if !whole {
		return false
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		j := digitPart(t, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(t)
}
