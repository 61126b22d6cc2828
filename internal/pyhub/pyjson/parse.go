package pyjson

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
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
	if p.skipSpace(); p.pos != len(p.data) {
		return nil, p.fail("data after the top-level value")
	}
	return v, nil
}

// parser is a cursor over one JSON text.
type parser struct {
	data []byte
	pos  int
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
		if depth >= maxDepth {
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
	return decodeStr(text, plain)
}

// strSpan moves past the string starting at its opening quote and returns
// its text, quotes included, and whether it is plain: no escape, no
// control character, valid UTF-8, so that it decodes to its own bytes.
func (p *parser) strSpan() (text []byte, plain bool, err error) {
	start := p.pos
	plain = true
	ascii := true // utf8.Valid is needed only past ASCII
	for i := start + 1; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			p.pos = i + 1
			text = p.data[start:p.pos]
			return text, plain && (ascii || utf8.Valid(text)), nil
		case c >= utf8.RuneSelf:
			ascii = false
		case c == '\\':
			plain = false
			i++ // the escaped byte cannot end the string
		case c < 0x20:
			p.pos = i
			return nil, false, p.fail("control character in string")
		}
	}
	p.pos = len(p.data)
	return nil, false, p.fail("unterminated string")
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

// number reads a number literal by the JSON grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() (any, error) {
	start := p.pos
	if err := p.skipNumber(); err != nil {
		return nil, err
	}
	return json.Number(p.data[start:p.pos]), nil
}

// skipNumber moves past the number at pos, checking its grammar.
func (p *parser) skipNumber() error {
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case p.digits() == 0:
		return p.fail("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return p.fail("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return p.fail("invalid number")
		}
	}
	return nil
}

// digits consumes a run of decimal digits and returns its length.
func (p *parser) digits() int {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}
