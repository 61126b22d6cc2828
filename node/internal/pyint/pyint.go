// Package pyint holds how Python's int() reads the text of a number,
// which both surfaces follow: the integer query parameters of the HTTP
// routes (node/httpapi) and the integer arguments of the MCP tools
// (node/mcp). It holds the text's normalisation only; each surface
// parses and bounds the result its own way.
package pyint

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text is s as Python's int() reads it before parsing: Unicode
// whitespace trimmed from both ends, and each decimal digit of any script
// (Unicode category Nd, such as '١' or '１') turned into its ASCII digit.
func Text(s string) string {
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
