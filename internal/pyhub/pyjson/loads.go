package pyjson

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/pynum"
	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
)

// Loads reads a file the hub reads (peers.json) as the hub does,
// Path.read_text(encoding="utf-8") then json.loads, so that a malformed
// file is reported with the text Python would print: the UTF-8 decoder's
// message for undecodable bytes, and the JSON scanner's message and
// position ("Expecting value: line 1 column 1 (char 0)") for bad JSON.
// Positions count code points after universal-newline translation, as
// Python's do. Values are nil, bool, string, json.Number (NaN, Infinity
// and -Infinity included; pynum.NumberLen tells an int from a float),
// []any and map[string]any (a repeated key keeps its last value). An
// error's text is str() of Python's exception. It is a scanner apart
// from the parser's: what it owes Python is its error texts and
// positions, which the parser, matching encoding/json, does not keep.
func Loads(raw []byte) (any, error) {
	text, err := pyReadText(raw)
	if err != nil {
		return nil, err
	}
	return pyJSONLoads(text)
}

// pyDecodeError is a Python exception text (str(exc)).
type pyDecodeError struct{ msg string }

func (e *pyDecodeError) Error() string { return e.msg }

// maxLoadsDepth bounds nesting; CPython raises RecursionError near 1000
// levels (reported here as its text, without the stack).
const maxLoadsDepth = 512

// pyReadText decodes raw as Python's read_text(encoding="utf-8") does:
// strict UTF-8, then "\r\n" and "\r" become "\n".
func pyReadText(raw []byte) ([]rune, error) {
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size <= 1 {
			return nil, &pyDecodeError{utf8ErrorText(raw, i)}
		}
		i += size
	}
	text := strings.ReplaceAll(string(raw), "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return []rune(text), nil
}

// utf8ErrorText renders Python's UnicodeDecodeError for the bad sequence
// starting at raw[i].
func utf8ErrorText(raw []byte, i int) string {
	bad := pyrepr.IllFormedAt(raw[i:])
	if bad.Reason == "invalid start byte" {
		return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", raw[i], i)
	}
	return decodeRangeText(raw, i, i+bad.Len, bad.Reason)
}

func decodeRangeText(raw []byte, start, end int, reason string) string {
	if end-start <= 1 {
		return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", raw[start], start, reason)
	}
	return fmt.Sprintf("'utf-8' codec can't decode bytes in position %d-%d: %s", start, end-1, reason)
}

// pyJSONLoads parses s as json.loads does (Loads); errors carry Python's
// JSONDecodeError text.
func pyJSONLoads(s []rune) (any, error) {
	if len(s) > 0 && s[0] == '\ufeff' {
		return nil, jsonErr(s, "Unexpected UTF-8 BOM (decode using utf-8-sig)", 0)
	}
	p := &pyScanner{s: s}
	start := p.skipWS(0)
	v, end, err := p.value(start, 0)
	if err != nil {
		return nil, err
	}
	if end = p.skipWS(end); end != len(s) {
		return nil, jsonErr(s, "Extra data", end)
	}
	return v, nil
}

// jsonErr renders JSONDecodeError: "<msg>: line L column C (char P)".
func jsonErr(s []rune, msg string, pos int) error {
	line, col := 1, pos+1
	for i := 0; i < pos && i < len(s); i++ {
		if s[i] == '\n' {
			line++
			col = pos - i
		}
	}
	return &pyDecodeError{fmt.Sprintf("%s: line %d column %d (char %d)", msg, line, col, pos)}
}

type pyScanner struct{ s []rune }

func isJSONSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

func (p *pyScanner) skipWS(i int) int {
	for i < len(p.s) && isJSONSpace(p.s[i]) {
		i++
	}
	return i
}

func (p *pyScanner) at(i int) rune {
	if i < len(p.s) {
		return p.s[i]
	}
	return -1
}

func (p *pyScanner) hasPrefix(i int, lit string) bool {
	return i+len(lit) <= len(p.s) && string(p.s[i:i+len(lit)]) == lit
}

// value is the scanner's scan_once: one JSON term at i.
func (p *pyScanner) value(i, depth int) (any, int, error) {
	if depth > maxLoadsDepth {
		return nil, 0, &pyDecodeError{"maximum recursion depth exceeded while decoding a JSON object from a unicode string"}
	}
	switch c := p.at(i); {
	case c == '"':
		return p.str(i + 1)
	case c == '{':
		return p.object(i+1, depth+1)
	case c == '[':
		return p.array(i+1, depth+1)
	case c == 'n' && p.hasPrefix(i, "null"):
		return nil, i + 4, nil
	case c == 't' && p.hasPrefix(i, "true"):
		return true, i + 4, nil
	case c == 'f' && p.hasPrefix(i, "false"):
		return false, i + 5, nil
	case c == 'N' && p.hasPrefix(i, "NaN"):
		return json.Number("NaN"), i + 3, nil
	case c == 'I' && p.hasPrefix(i, "Infinity"):
		return json.Number("Infinity"), i + 8, nil
	case c == '-' && p.hasPrefix(i, "-Infinity"):
		return json.Number("-Infinity"), i + 9, nil
	}
	if v, end, ok := p.number(i); ok {
		return v, end, nil
	}
	return nil, 0, jsonErr(p.s, "Expecting value", i)
}

// number reads the number at i (pynum.NumberLen); ok is false when
// there is none.
func (p *pyScanner) number(i int) (v any, end int, ok bool) {
	j := i
	for j < len(p.s) && strings.ContainsRune("+-.0123456789eE", p.s[j]) {
		j++
	}
	n, _ := pynum.NumberLen(string(p.s[i:j])) // ASCII: bytes are code points
	if n == 0 {
		return nil, 0, false
	}
	return json.Number(string(p.s[i : i+n])), i + n, true
}

// object parses after '{' at i.
func (p *pyScanner) object(i, depth int) (any, int, error) {
	obj := map[string]any{}
	i = p.skipWS(i)
	if p.at(i) == '}' {
		return obj, i + 1, nil
	}
	for {
		if p.at(i) != '"' {
			return nil, 0, jsonErr(p.s, "Expecting property name enclosed in double quotes", i)
		}
		k, next, err := p.str(i + 1)
		if err != nil {
			return nil, 0, err
		}
		i = p.skipWS(next)
		if p.at(i) != ':' {
			return nil, 0, jsonErr(p.s, "Expecting ':' delimiter", i)
		}
		i = p.skipWS(i + 1)
		v, next, err := p.value(i, depth)
		if err != nil {
			return nil, 0, err
		}
		obj[k.(string)] = v
		i = p.skipWS(next)
		if p.at(i) == '}' {
			return obj, i + 1, nil
		}
		if p.at(i) != ',' {
			return nil, 0, jsonErr(p.s, "Expecting ',' delimiter", i)
		}
		i = p.skipWS(i + 1)
	}
}

// array parses after '[' at i.
func (p *pyScanner) array(i, depth int) (any, int, error) {
	arr := []any{}
	i = p.skipWS(i)
	if p.at(i) == ']' {
		return arr, i + 1, nil
	}
	for {
		v, next, err := p.value(i, depth)
		if err != nil {
			return nil, 0, err
		}
		arr = append(arr, v)
		i = p.skipWS(next)
		if p.at(i) == ']' {
			return arr, i + 1, nil
		}
		if p.at(i) != ',' {
			return nil, 0, jsonErr(p.s, "Expecting ',' delimiter", i)
		}
		i = p.skipWS(i + 1)
	}
}

// str parses a string whose opening quote is at i-1 (CPython's
// scanstring_unicode, strict mode).
func (p *pyScanner) str(i int) (any, int, error) {
	begin := i - 1
	var b strings.Builder
	for {
		j := i
		for ; j < len(p.s); j++ {
			c := p.s[j]
			if c == '"' || c == '\\' {
				break
			}
			if c <= 0x1f {
				return nil, 0, jsonErr(p.s, "Invalid control character at", j)
			}
		}
		if j >= len(p.s) {
			return nil, 0, jsonErr(p.s, "Unterminated string starting at", begin)
		}
		b.WriteString(string(p.s[i:j]))
		if p.s[j] == '"' {
			return b.String(), j + 1, nil
		}
		j++ // past the backslash
		if j == len(p.s) {
			return nil, 0, jsonErr(p.s, "Unterminated string starting at", begin)
		}
		if p.s[j] != 'u' {
			r, ok := map[rune]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[p.s[j]]
			if !ok {
				return nil, 0, jsonErr(p.s, `Invalid \escape`, j-1)
			}
			b.WriteRune(r)
			i = j + 1
			continue
		}
		r, next, err := p.unicodeEscape(j + 1)
		if err != nil {
			return nil, 0, err
		}
		b.WriteRune(r)
		i = next
	}
}

// unicodeEscape reads the 4 hex digits at i (after "\u"), joining a
// following low-surrogate escape into one code point as CPython does.
func (p *pyScanner) unicodeEscape(i int) (rune, int, error) {
	hex4 := func(at int) (rune, bool) {
		v, err := strconv.ParseUint(string(p.s[at:at+4]), 16, 32)
		return rune(v), err == nil
	}
	end := i + 4
	if end >= len(p.s) {
		return 0, 0, jsonErr(p.s, `Invalid \uXXXX escape`, i-1)
	}
	c, ok := hex4(i)
	if !ok {
		return 0, 0, jsonErr(p.s, `Invalid \uXXXX escape`, i-1)
	}
	if c >= 0xD800 && c <= 0xDBFF && end+6 < len(p.s) && p.s[end] == '\\' && p.s[end+1] == 'u' {
		c2, ok := hex4(end + 2)
		if !ok {
			return 0, 0, jsonErr(p.s, `Invalid \uXXXX escape`, end+1)
		}
		if c2 >= 0xDC00 && c2 <= 0xDFFF {
			return 0x10000 + (c-0xD800)<<10 + (c2 - 0xDC00), end + 6, nil
		}
	}
	return c, end, nil
}
