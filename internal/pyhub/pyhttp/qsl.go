package pyhttp

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
)

// ParseQSL reads a query string as dict(urllib.parse.parse_qsl(query))
// does: pairs split on '&' only (Python 3.10 and later), pairs without
// '=' and blank values dropped, the last value of a repeated key winning,
// keys and values decoded as UnquotePlus decodes them.
func ParseQSL(query string) map[string]string {
	q := map[string]string{}
	for _, pair := range strings.Split(query, "&") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok || v == "" {
			continue // a bare name or a blank value, dropped
		}
		q[UnquotePlus(k)] = UnquotePlus(v)
	}
	return q
}

// UnquotePlus decodes like Python's urllib.parse.unquote_plus: '+' is a
// space, valid %XX escapes are decoded, invalid ones are kept as they
// are, and bytes that are not UTF-8 become U+FFFD as errors="replace"
// makes them (replaceInvalid).
func UnquotePlus(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	if !strings.Contains(s, "%") {
		return replaceInvalid(s) // raw bytes that are not UTF-8, as escaped ones
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return replaceInvalid(string(b))
}

// replaceInvalid is Python's bytes.decode("utf-8", "replace"): one
// U+FFFD for each maximal ill-formed subsequence (a lead byte and the
// continuation bytes that could still have completed it), where
// strings.ToValidUTF8 would write one for a whole run of bad bytes.
func replaceInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		b.WriteRune(utf8.RuneError)
		i += pyrepr.IllFormedAt(s[i:]).Len
	}
	return b.String()
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// Param is one query parameter of a request.
type Param struct{ Key, Value string }

// URLEncode is urllib.parse.urlencode of params, in their order (a
// Python dict keeps its order): key=value pairs joined by '&', each side
// escaped as quote_plus escapes it, which url.QueryEscape matches.
func URLEncode(params ...Param) string {
	var b strings.Builder
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p.Key))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p.Value))
	}
	return b.String()
}
