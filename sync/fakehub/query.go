package fakehub

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// parseQSL is dict(urllib.parse.parse_qsl(query)): pairs split on "&",
// pairs without "=" and blank values dropped, "+" and %XX decoded (bad
// escapes kept as they are, bad UTF-8 replaced), the last value of a
// repeated key winning.
func parseQSL(query string) map[string]string {
	out := map[string]string{}
	for _, pair := range strings.Split(query, "&") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok || v == "" {
			continue
		}
		out[unquotePlus(k)] = unquotePlus(v)
	}
	return out
}

// unquotePlus is urllib.parse.unquote_plus with errors="replace".
func unquotePlus(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// intParam is int(params.get(key, def)): Python's int() of the text,
// failing with Python's ValueError text.
func intParam(q map[string]string, key string, def int64) (int64, error) {
	v, ok := q[key]
	if !ok {
		return def, nil
	}
	return pyInt(v)
}

// pyInt parses like Python's int(s) for ASCII text: surrounding
// whitespace, an optional sign, decimal digits with single underscores
// between them. Values beyond int64 saturate.
func pyInt(s string) (int64, error) {
	fail := fmt.Errorf("invalid literal for int() with base 10: %s", rules.Repr(s))
	t := strings.TrimSpace(s)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return 0, fail
	}
	var n int64
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '_':
		case c >= '0' && c <= '9':
			if n > (1<<63-1-int64(c-'0'))/10 {
				n = 1<<63 - 1
			} else {
				n = n*10 + int64(c-'0')
			}
		default:
			return 0, fail
		}
	}
	if neg {
		n = -n
	}
	return n, nil
}
