package pynum

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// text is s as Python's int() and float() read it before parsing:
// Unicode whitespace trimmed from both ends, and each decimal digit of
// any script (Unicode category Nd, such as '١' or '１') turned into its
// ASCII digit.
func text(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf || !unicode.IsDigit(r) {
			return r
		}
		return '0' + digitValue(r)
	}, strings.TrimSpace(s))
}

// digitValue is the value of a decimal digit. Unicode encodes each
// script's digits 0 to 9 in one contiguous run (some runs back to back),
// so it is the digit's distance from the start of its run, modulo 10.
func digitValue(r rune) rune {
	start := r
	for unicode.IsDigit(start - 1) {
		start--
	}
	return (r - start) % 10
}

// cutSign splits an optional leading '+' or '-' off t.
func cutSign(t string) (neg bool, rest string) {
	if t != "" && (t[0] == '+' || t[0] == '-') {
		return t[0] == '-', t[1:]
	}
	return false, t
}

// digitPart is the end of the run of t starting at i that Python's
// grammar calls a digitpart: digits with single underscores between
// them. It is i when t has no digit at i.
func digitPart(t string, i int) int {
	end := i
	for j := i; j < len(t); j++ {
		switch c := t[j]; {
		case c >= '0' && c <= '9':
			end = j + 1
		case c == '_' && j > i && end == j && j+1 < len(t) && t[j+1] >= '0' && t[j+1] <= '9':
		default:
			return end
		}
	}
	return end
}
