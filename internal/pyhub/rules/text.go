package rules

import (
	"strings"
	"unicode/utf8"
)

// isPySpace reports whether Python's str.isspace() holds for r: the
// characters str.strip() removes.
func isPySpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' ',
		0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pyStrip is Python's str.strip() with no arguments.
func pyStrip(s string) string {
	return strings.TrimFunc(s, isPySpace)
}

// pyLower is Python's str.lower() for the cases that differ from Go's
// strings.ToLower: U+0130 lowers to "i̇" (two code points), and a lone
// surrogate (an encoded one, as fixSurrogates reads it) stays as it is,
// where strings.ToLower would make each of its bytes a U+FFFD.
func pyLower(s string) string {
	s = strings.ReplaceAll(s, "\u0130", "i\u0307")
	if utf8.ValidString(s) {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for start, i := 0, 0; i <= len(s); {
		if i < len(s) && !isEncodedSurrogate(s[i:]) {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		b.WriteString(strings.ToLower(s[start:i]))
		if i == len(s) {
			break
		}
		b.WriteString(s[i : i+3])
		i += 3
		start = i
	}
	return b.String()
}

// fixSurrogates plays Python's strip_lone_surrogates: an encoded surrogate
// (ED A0..BF 80..BF, as WTF-8 writes one) becomes one U+FFFD, and any
// other invalid byte becomes U+FFFD too.
func fixSurrogates(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if isEncodedSurrogate(s[i:]) {
			b.WriteRune(utf8.RuneError)
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

func isEncodedSurrogate(s string) bool {
	return len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2] >= 0x80 && s[2] <= 0xBF
}

// hasControl reports a character below U+0020 or U+007F.
func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}
