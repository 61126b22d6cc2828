package pyrepr

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// String renders s as Python's repr() of a str, so error texts match the
// hub's byte for byte: single quotes unless s holds a ' and no ", backslash
// escapes for the quote, backslash, \t \n \r, \xhh for other ASCII controls
// and for non-printable code points up to U+00FF, \uhhhh and \Uhhhhhhhh
// above that. Printable non-ASCII is kept as is; Go's unicode.IsPrint
// stands in for Python's str.isprintable (the two differ only where their
// Unicode versions do). A lone surrogate, which a Go string holds as its
// WTF-8 bytes (ED A0..BF 80..BF), is \udxxx, as Python shows the one
// json.loads makes of "\udcff"; Python strings cannot hold other invalid
// UTF-8, so such bytes are shown as \xhh.
func String(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if sur, ok := surrogateAt(s[i:]); ok {
			writeEscape(&b, 'u', sur, 4)
			size = 3
		} else if r == utf8.RuneError && size == 1 {
			writeEscape(&b, 'x', rune(s[i]), 2)
		} else {
			writeReprRune(&b, r, quote)
		}
		i += size
	}
	b.WriteByte(quote)
	return b.String()
}

func writeReprRune(b *strings.Builder, r rune, quote byte) {
	switch {
	case r == rune(quote) || r == '\\':
		b.WriteByte('\\')
		b.WriteByte(byte(r))
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r < ' ' || r == 0x7f:
		writeEscape(b, 'x', r, 2)
	case r < 0x7f || unicode.IsPrint(r):
		b.WriteRune(r)
	case r <= 0xff:
		writeEscape(b, 'x', r, 2)
	case r <= 0xffff:
		writeEscape(b, 'u', r, 4)
	default:
		writeEscape(b, 'U', r, 8)
	}
}

// writeEscape writes a backslash, kind, and r as width lowercase hex digits.
func writeEscape(b *strings.Builder, kind byte, r rune, width int) {
	b.WriteByte('\\')
	b.WriteByte(kind)
	for shift := 4 * (width - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>shift)&0xF])
	}
}

const hexDigits = "0123456789abcdef"

// surrogateAt is the lone surrogate whose WTF-8 bytes start s.
func surrogateAt(s string) (rune, bool) {
	if len(s) < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || s[2] < 0x80 || s[2] > 0xBF {
		return 0, false
	}
	return 0xD000 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), true
}
