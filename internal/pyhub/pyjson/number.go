package pyjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/pynum"
)

// isNumber reports whether s is one JSON number (RFC 8259 §6) and
// whether Python reads it as a float rather than an int.
func isNumber(s string) (ok, float bool) {
	n, float := pynum.NumberLen(s)
	return n > 0 && n == len(s), float
}

// appendNumber writes a json.Number the way Python re-encodes what
// json.loads made of it: an integer literal stays exact, anything with a
// fraction or exponent becomes a float.
func appendNumber(dst []byte, n json.Number) ([]byte, error) {
	s := string(n)
	ok, float := isNumber(s)
	if !ok {
		return nil, fmt.Errorf("%w: number %q", ErrSyntax, s)
	}
	if !float {
		if s == "-0" { // Python's int("-0") is 0
			s = "0"
		}
		return append(dst, s...), nil
	}
	f, err := parseFloat(s)
	if err != nil {
		return nil, err
	}
	return appendPyFloat(dst, f, 64)
}

// parseFloat parses a valid JSON number as float64. Underflow gives a
// (signed) zero as in Python; overflow is refused, where Python would get
// an infinity.
func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if math.IsInf(f, 0) {
		return 0, fmt.Errorf("%w: number %s overflows a float", ErrUnsupported, s)
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%w: number %q", ErrSyntax, s)
	}
	return f, nil
}

// decimal splits a finite non-zero float into its shortest round-trip
// decimal digits and exponent: |f| = 0.d1d2d3... × 10^point.
func decimal(f float64, bitSize int) (neg bool, digits string, point int) {
	s := strconv.FormatFloat(f, 'e', -1, bitSize) // "-d.ddde±xx"
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return neg, strings.Replace(mant, ".", "", 1), e + 1
}

// appendPyFloat writes f as Python's repr(float): shortest round-trip
// digits, positional for decimal exponents -4..15, scientific otherwise,
// always with a ".0" or an exponent so it reads back as a float.
func appendPyFloat(dst []byte, f float64, bitSize int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: %v has no JSON form", ErrUnsupported, f)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...), nil
		}
		return append(dst, "0.0"...), nil
	}
	neg, digits, point := decimal(f, bitSize)
	if neg {
		dst = append(dst, '-')
	}
	exp := point - 1
	switch {
	case exp < -4 || exp >= 16:
		return appendSci(dst, digits, exp, 2), nil
	case point <= 0:
		dst = append(dst, "0."...)
		dst = append(dst, strings.Repeat("0", -point)...)
		return append(dst, digits...), nil
	case point >= len(digits):
		dst = append(dst, digits...)
		dst = append(dst, strings.Repeat("0", point-len(digits))...)
		return append(dst, ".0"...), nil
	default:
		return append(append(append(dst, digits[:point]...), '.'), digits[point:]...), nil
	}
}

// appendES6 writes f as ECMAScript's Number.prototype.toString, the number
// form RFC 8785 requires.
func appendES6(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%w: %v has no JSON form", ErrUnsupported, f)
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	neg, digits, n := decimal(f, 64)
	if neg {
		dst = append(dst, '-')
	}
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		return append(dst, strings.Repeat("0", n-k)...), nil
	case 0 < n && n <= 21:
		return append(append(append(dst, digits[:n]...), '.'), digits[n:]...), nil
	case -6 < n && n <= 0:
		dst = append(dst, "0."...)
		dst = append(dst, strings.Repeat("0", -n)...)
		return append(dst, digits...), nil
	default:
		return appendSci(dst, digits, n-1, 1), nil
	}
}

// appendSci writes d[.ddd]e±x with at least minExp exponent digits.
func appendSci(dst []byte, digits string, exp, minExp int) []byte {
	dst = append(dst, digits[0])
	if len(digits) > 1 {
		dst = append(append(dst, '.'), digits[1:]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst, exp = append(dst, '-'), -exp
	} else {
		dst = append(dst, '+')
	}
	e := strconv.Itoa(exp)
	if len(e) < minExp {
		dst = append(dst, strings.Repeat("0", minExp-len(e))...)
	}
	return append(dst, e...)
}
