package pyjson

import (
	"cmp"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/lsnode/lsnode/internal/pyhub/pynum"
)

// maxDepth bounds nesting on parse and encode, near Python's default
// recursion limit, so hostile input cannot exhaust the stack.
const maxDepth = 1000

// parse decodes one JSON text into nil, bool, string, json.Number, []any
// and Object values, keeping member order. It reads the text in one pass
// (every tool result renders stored events through it, so it is on the hot
// path of the MCP and SSE surfaces) and accepts exactly what encoding/json
// accepts, with the same values: strings that hold an escape, a control
// character or invalid UTF-8 are decoded by encoding/json itself.
func parse(raw []byte) (any, error) {
	p := &parser{data: raw}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return v, nil
}

// end checks that only space follows the top-level value.
func (p *parser) end() error {
	if p.skipSpace(); p.pos != len(p.data) {
		return p.fail("data after the top-level value")
	}
	return nil
}

// parser is a cursor over one JSON text.
type parser struct {
	data []byte
	pos  int
	// depthLimit bounds the containers value reads (0: maxDepth).
	depthLimit int
	// keepSurrogates decodes a string holding a lone surrogate escape as
	// Python's json.loads does (decodeKeepingSurrogates).
	keepSurrogates bool
	// float64Range refuses a number beyond float64's range with
	// errBeyondFloat64 (BeyondFloat64).
	float64Range bool
}

func (p *parser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrSyntax, what, p.pos)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value reads one value; depth counts the containers around it.
func (p *parser) value(depth int) (any, error) {
	p.skipSpace()
	if p.pos == len(p.data) {
		return nil, p.fail("unexpected end of JSON input")
	}
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth >= cmp.Or(p.depthLimit, maxDepth) {
			return nil, ErrTooDeep
		}
		p.pos++
		if c == '[' {
			return p.array(depth + 1)
		}
		return p.object(depth + 1)
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return true, nil
	case p.literal("false"):
		return false, nil
	case p.literal("null"):
		return nil, nil
	}
	return nil, p.fail("invalid character")
}

// literal consumes text if the input continues with it.
func (p *parser) literal(text string) bool {
	end := p.pos + len(text)
	if end > len(p.data) || string(p.data[p.pos:end]) != text {
		return false
	}
	p.pos = end
	return true
}

// skip moves past one value, checking it as encoding/json's validator
// does, without building it; depth counts the containers around it,
// which may be at most limit deep.
func (p *parser) skip(depth, limit int) error {
	p.skipSpace()
	if p.pos == len(p.data) {
		return p.fail("unexpected end of JSON input")
	}
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth >= limit {
			return fmt.Errorf("%w: nesting deeper than %d at offset %d", ErrSyntax, limit, p.pos)
		}
		p.pos++
		closing := byte(']')
		if c == '{' {
			closing = '}'
		}
		if p.skipSpace(); p.pos < len(p.data) && p.data[p.pos] == closing {
			p.pos++
			return nil
		}
		for {
			if c == '{' {
				if err := p.skipKey(); err != nil {
					return err
				}
			}
			if err := p.skip(depth+1, limit); err != nil {
				return err
			}
			if done, err := p.next(closing); err != nil || done {
				return err
			}
		}
	case c == '"':
		_, _, err := p.skipString()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := p.skipNumber()
		return err
	case p.literal("true"), p.literal("false"), p.literal("null"):
		return nil
	}
	return p.fail("invalid character")
}

// skipKey moves past an object member's key and its ':'.
func (p *parser) skipKey() error {
	if p.skipSpace(); p.pos == len(p.data) || p.data[p.pos] != '"' {
		return p.fail("object key is not a string")
	}
	if _, _, err := p.skipString(); err != nil {
		return err
	}
	if p.skipSpace(); p.pos == len(p.data) || p.data[p.pos] != ':' {
		return p.fail("missing ':' after object key")
	}
	p.pos++
	return nil
}

func (p *parser) array(depth int) (any, error) {
	list := []any{}
	if p.skipSpace(); p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return list, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		list = append(list, v)
		if done, err := p.next(']'); err != nil || done {
			return list, err
		}
	}
}

// object reads members; like a Python dict, a repeated key keeps its first
// place and takes its last value.
func (p *parser) object(depth int) (any, error) {
	obj := Object{}
	if p.skipSpace(); p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	var index map[string]int // made at the first repeated-key check that needs it
	for {
		if p.skipSpace(); p.pos == len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("object key is not a string")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if p.skipSpace(); p.pos == len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("missing ':' after object key")
		}
		p.pos++
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		i, dup := memberIndex(obj, &index, key)
		if dup {
			obj[i].Value = v
		} else {
			obj = append(obj, Member{Key: key, Value: v})
		}
		if done, err := p.next('}'); err != nil || done {
			return obj, err
		}
	}
}

// memberIndex finds key among obj's members: by a scan while the object
// is small, then through an index built on first need.
func memberIndex(obj Object, index *map[string]int, key string) (int, bool) {
	const scanLimit = 16
	if *index == nil && len(obj) < scanLimit {
		for i := range obj {
			if obj[i].Key == key {
				return i, true
			}
		}
		return 0, false
	}
	if *index == nil {
		*index = make(map[string]int, 2*len(obj))
		for i := range obj {
			(*index)[obj[i].Key] = i
		}
	}
	if i, ok := (*index)[key]; ok {
		return i, true
	}
	(*index)[key] = len(obj)
	return 0, false
}

// next consumes the ',' between items or the closing delimiter, and says
// whether the container ended.
func (p *parser) next(closing byte) (bool, error) {
	p.skipSpace()
	if p.pos == len(p.data) {
		return false, p.fail("unexpected end of JSON input")
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, p.fail("invalid character after an item")
}

// str reads a string starting at its opening quote.
func (p *parser) str() (string, error) {
	text, plain, err := p.strSpan()
	if err != nil {
		return "", err
	}
	if p.keepSurrogates && !plain && hasSurrogateEscape(text) {
		return decodeKeepingSurrogates(text), nil
	}
	return decodeStr(text, plain)
}

// strSpan moves past the string starting at its opening quote and returns
// its text, quotes included, and whether it is plain: no escape, no
// control character, valid UTF-8, so that it decodes to its own bytes.
func (p *parser) strSpan() (text []byte, plain bool, err error) {
	start := p.pos
	escaped, ascii, err := p.skipString()
	if err != nil {
		return nil, false, err
	}
	text = p.data[start:p.pos]
	return text, !escaped && (ascii || utf8.Valid(text)), nil // utf8.Valid is needed only past ASCII
}

// skipString moves past the string starting at its opening quote,
// checking its grammar: no control character, and escapes of the JSON
// set (\" \\ \/ \b \f \n \r \t and \u with four hex digits). It
// reports whether the string holds an escape and whether it is all ASCII;
// invalid UTF-8 is let through, as encoding/json lets it through.
func (p *parser) skipString() (escaped, ascii bool, err error) {
	ascii = true
	for i := p.pos + 1; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			p.pos = i + 1
			return escaped, ascii, nil
		case c >= utf8.RuneSelf:
			ascii = false
		case c == '\\':
			escaped = true
			if n := escapeLen(p.data[i+1:]); n > 0 {
				i += n
				continue
			}
			p.pos = i
			return false, false, p.fail("invalid escape in string")
		case c < 0x20:
			p.pos = i
			return false, false, p.fail("control character in string")
		}
	}
	p.pos = len(p.data)
	return false, false, p.fail("unterminated string")
}

// escapeLen is the length of the escape after a backslash at the start of
// rest, 0 when it is not one JSON allows (or rest ends first).
func escapeLen(rest []byte) int {
	if len(rest) == 0 {
		return 0
	}
	switch rest[0] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 1
	case 'u':
		if len(rest) < 5 {
			return 0
		}
		for _, h := range rest[1:5] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return 0
			}
		}
		return 5
	}
	return 0
}

// decodeStr decodes a string's text: a plain one is taken as it stands,
// any other is handed to encoding/json, whose decoding (U+FFFD for invalid
// UTF-8 and lone surrogates) is the reference.
func decodeStr(text []byte, plain bool) (string, error) {
	if plain {
		return string(text[1 : len(text)-1]), nil
	}
	var s string
	if err := json.Unmarshal(text, &s); err != nil {
		return "", fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	return s, nil
}

// number reads a number literal (skipNumber).
func (p *parser) number() (any, error) {
	start := p.pos
	if _, err := p.skipNumber(); err != nil {
		return nil, err
	}
	return json.Number(p.data[start:p.pos]), nil
}

// skipNumber moves past the number at pos, read by the JSON grammar as
// Python reads it (pynum.NumberLen), and reports whether Python makes a
// float of it.
func (p *parser) skipNumber() (float bool, err error) {
	n, float := pynum.NumberLen(p.data[p.pos:])
	if n == 0 {
		return false, p.fail("invalid number")
	}
	if p.float64Range && beyondFloat64(p.data[p.pos:p.pos+n]) {
		return false, errBeyondFloat64
	}
	p.pos += n
	return float, nil
}
