package httpapi

import (
	"strings"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/pynum"
	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// query is a request's query string read the way the Python hub reads it:
// dict(parse_qsl(query)) — blank values dropped, the last value of a
// repeated key wins.
type query map[string]string

func parseQuery(raw string) query {
	q := query{}
	for _, pair := range strings.Split(raw, "&") { // Python 3.10+ splits on & only
		k, v, ok := strings.Cut(pair, "=")
		if !ok {
			continue // a blank pair, dropped
		}
		if v = unquotePlus(v); v != "" {
			q[unquotePlus(k)] = v
		}
	}
	return q
}

// unquotePlus decodes like Python's urllib.parse.unquote_plus: '+' is a
// space, valid %XX escapes are decoded, invalid ones are kept as they
// are, and bytes that are not UTF-8 become U+FFFD as errors="replace"
// makes them (pyReplaceInvalid).
func unquotePlus(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	if !strings.Contains(s, "%") {
		return pyReplaceInvalid(s) // raw bytes that are not UTF-8, as escaped ones
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
	return pyReplaceInvalid(string(b))
}

// pyReplaceInvalid is Python's bytes.decode("utf-8", "replace"): one
// U+FFFD for each maximal ill-formed subsequence (a lead byte and the
// continuation bytes that could still have completed it), where
// strings.ToValidUTF8 would write one for a whole run of bad bytes.
func pyReplaceInvalid(s string) string {
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

// streamFilter reads the filters of /logstream/stream and
// /logstream/events. from_agent filters on the writer, as the Python SSE
// route does (and is refused under its own name); writer is accepted as
// its newer spelling and wins.
func (q query) streamFilter() (store.Filter, error) {
	f := store.Filter{
		Stream:        q["stream"],
		Room:          q["room"],
		Topic:         q["topic"],
		Type:          q["type"],
		ToAgent:       q["to_agent"],
		Writer:        q["writer"],
		CorrelationID: q["correlation_id"],
		Status:        q["status"],
		Order:         "asc",
	}
	if f.Writer == "" && q["from_agent"] != "" {
		w, err := rules.Routing(q["from_agent"], "from_agent", false)
		if err != nil {
			return f, invalid(err.Error())
		}
		f.Writer = w
	}
	return f, nil
}

// intParam reads an integer parameter as Python's int() does
// (pynum.Int64), with def when absent.
func (q query) intParam(key string, def int64) (int64, error) {
	v, ok := q[key]
	if !ok {
		return def, nil
	}
	n, err := pynum.Int64(v)
	if err != nil {
		return 0, invalid(err.Error())
	}
	return n, nil
}
