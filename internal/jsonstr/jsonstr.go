package jsonstr

import "unicode/utf8"

// escapes say how AppendChars writes each ASCII byte, without and with
// HTML escaping: 0 as it is, 'u' as \u00xx, any other letter as a
// backslash and that letter.
var escapes = func() (t [2][utf8.RuneSelf]byte) {
	for c := range 0x20 {
		t[0][c] = 'u'
	}
	t[0]['"'], t[0]['\\'] = '"', '\\'
	t[0]['\b'], t[0]['\f'], t[0]['\n'], t[0]['\r'], t[0]['\t'] = 'b', 'f', 'n', 'r', 't'
	t[1] = t[0]
	t[1]['<'], t[1]['>'], t[1]['&'] = 'u', 'u', 'u'
	return t
}()

// Append appends s as a JSON string the way encoding/json writes a Go
// string: '"' and '\' escaped with a backslash; \b, \f, \n, \r and \t by
// name and the other control characters as \u00xx; U+2028 and U+2029 as
// \u2028 and \u2029; each byte of invalid UTF-8 as \ufffd; and with html,
// '<', '>' and '&' as \u003c, \u003e and \u0026. Everything else is
// copied, in runs.
func Append[T ~string | ~[]byte](dst []byte, s T, html bool) []byte {
	return append(AppendChars(append(dst, '"'), s, html), '"')
}

// AppendChars is Append without the quotes: what stands between them.
// The escapes of a text are the escapes of its parts in turn, so a text
// can be escaped piece by piece.
func AppendChars[T ~string | ~[]byte](dst []byte, s T, html bool) []byte {
	const hexDigits = "0123456789abcdef"
	table := &escapes[0]
	if html {
		table = &escapes[1]
	}
	run := 0 // start of the bytes not yet copied
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			esc := table[c]
			if esc == 0 {
				i++
				continue
			}
			dst = append(dst, s[run:i]...)
			if esc == 'u' {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				dst = append(dst, '\\', esc)
			}
			i++
			run = i
			continue
		}
		var head [utf8.UTFMax]byte // the rune's bytes, copied: utf8 reads a []byte or a string, not either
		r, size := utf8.DecodeRune(head[:copy(head[:], s[i:])])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[run:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[run:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		run = i
	}
	return append(dst, s[run:]...)
}
