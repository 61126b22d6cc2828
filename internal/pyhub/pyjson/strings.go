package pyjson

import (
	"cmp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. It escapes '"', '\\' and the
// C0 controls (the short forms \b \t \n \f \r, else \u00xx), as both
// Python and RFC 8785 do; in ascii mode it also escapes everything outside
// ' '..'~' as \uxxxx, with surrogate pairs above U+FFFF. Invalid UTF-8
// bytes become U+FFFD. Runs of printable ASCII are copied at once.
func appendString(dst []byte, s string, ascii bool) []byte {
	dst = append(dst, '"')
	for s != "" {
		n := printablePrefix(s)
		dst = append(dst, s[:n]...)
		if s = s[n:]; s == "" {
			break
		}
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		dst = appendRune(dst, r, ascii)
	}
	return append(dst, '"')
}

// appendRune writes one rune of a string's content in the style chosen
// by ascii (see appendString).
func appendRune(dst []byte, r rune, ascii bool) []byte {
	switch {
	case r == '"':
		return append(dst, `\"`...)
	case r == '\\':
		return append(dst, `\\`...)
	case r < 0x20:
		return appendControl(dst, r)
	case ascii && r > '~':
		return appendUnicodeEscape(dst, r)
	default:
		return utf8.AppendRune(dst, r)
	}
}

// printablePrefix is the length of the leading run of s that every style
// writes as it stands: ' '..'~' but '"' and '\\'.
func printablePrefix[T string | []byte](s T) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return i
		}
	}
	return len(s)
}

func appendControl(dst []byte, r rune) []byte {
	switch r {
	case '\b':
		return append(dst, `\b`...)
	case '\t':
		return append(dst, `\t`...)
	case '\n':
		return append(dst, `\n`...)
	case '\f':
		return append(dst, `\f`...)
	case '\r':
		return append(dst, `\r`...)
	}
	return appendU4(dst, r)
}

func appendUnicodeEscape(dst []byte, r rune) []byte {
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		return appendU4(appendU4(dst, hi), lo)
	}
	return appendU4(dst, r)
}

// appendU4 writes \uxxxx with lowercase hex.
func appendU4(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u',
		hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785
// sorts object keys. It differs from code point order only when a
// character above U+FFFF meets one in U+E000..U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			if ua, ub := firstUnit(ra), firstUnit(rb); ua != ub {
				return cmp.Compare(ua, ub)
			}
			return cmp.Compare(ra, rb) // same high surrogate: low halves order as runes
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r > 0xFFFF {
		hi, _ := utf16.EncodeRune(r)
		return hi
	}
	return r
}

// validKey replaces invalid UTF-8 bytes with U+FFFD so that keys sort as
// they are written.
func validKey(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}
