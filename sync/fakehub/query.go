package fakehub

import (
	"strings"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/pynum"
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

// intParam is int(params.get(key, def)): Python's int() of the text
// (pynum.Int64), failing with Python's ValueError text.
func intParam(q map[string]string, key string, def int64) (int64, error) {
	v, ok := q[key]
	if !ok {
		return def, nil
	}
	return pynum.Int64(v)
}
