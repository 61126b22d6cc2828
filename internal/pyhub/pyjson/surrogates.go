package pyjson

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Python's json.loads keeps an escaped UTF-16 surrogate that is not half
// of a pair ("a\udcffb") as a lone surrogate in its str, where
// encoding/json makes it U+FFFD. A Go string holds such a surrogate as its
// WTF-8 bytes (the three bytes UTF-8 would write for it, which are not
// valid UTF-8). The parser decodes strings so when asked
// (Reader.LoneSurrogates).

// hasSurrogateEscape reports whether text, JSON whose strings have the
// grammar's escapes, holds a \uD800 to \uDFFF escape.
func hasSurrogateEscape(text []byte) bool {
	for i := 0; i+5 < len(text); i++ {
		if text[i] != '\\' {
			continue
		}
		if text[i+1] == 'u' && (text[i+2] == 'd' || text[i+2] == 'D') && isHighHex(text[i+3]) {
			return true
		}
		i++ // the escaped byte
	}
	return false
}

// isHighHex reports a hex digit 8 to f: the second digit of a surrogate.
func isHighHex(c byte) bool {
	return (c >= '8' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// decodeKeepingSurrogates decodes a string's text (quotes included, its
// grammar checked) as encoding/json does - escapes, a surrogate pair as
// its character, each byte that is not UTF-8 as U+FFFD - but for a lone
// surrogate, which it keeps as its WTF-8 bytes.
func decodeKeepingSurrogates(text []byte) string {
	out := make([]byte, 0, len(text))
	for i := 1; i < len(text)-1; {
		c := text[i]
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(text[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, text[i:i+size]...)
			}
			i += size
			continue
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		esc := text[i+1]
		i += 2
		switch esc {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(text[i:])
			i += 4
			if utf16.IsSurrogate(r) && r < 0xDC00 && i+6 <= len(text) && text[i] == '\\' && text[i+1] == 'u' {
				if pair := utf16.DecodeRune(r, hex4(text[i+2:])); pair != utf8.RuneError {
					out = utf8.AppendRune(out, pair)
					i += 6
					continue
				}
			}
			out = appendWTF8(out, r)
		default: // '"', '\\', '/'
			out = append(out, esc)
		}
	}
	return string(out)
}

// hex4 reads the four hex digits at the start of b.
func hex4(b []byte) rune {
	n, _ := strconv.ParseUint(string(b[:4]), 16, 16) // checked by the grammar: four hex digits
	return rune(n)
}

// appendWTF8 appends r as UTF-8 would write it, surrogates included.
func appendWTF8(dst []byte, r rune) []byte {
	if !utf16.IsSurrogate(r) {
		return utf8.AppendRune(dst, r)
	}
	return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}
