package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
)

// errTranscode stops a transcoding attempt; the caller then parses the
// text into values and encodes those, which decides the outcome (the
// output, or the error a caller sees).
var errTranscode = errors.New("pyjson: transcode not possible")

// transcode writes one JSON text in the encoder's style straight from its
// bytes, without building values: the path of every stored event an MCP
// result or an SSE frame renders (json.Marshaler output). It only runs for
// styles that keep member order and Python's number forms (not the sorting
// styles, not JCS), and it gives up - leaving e.buf to be reset - on
// anything it does not write exactly as encoding the parsed values would:
// invalid JSON, a repeated key (Python keeps the first place and the last
// value), a number the encoder refuses, nesting past the limits. Output it
// completes is byte for byte that of encode(parse(raw)); FuzzTranscode
// checks it.
func (e *encoder) transcode(raw []byte) error {
	// The output is about the input's size (more with indentation): grow
	// once rather than by doubling from empty.
	e.buf = slices.Grow(e.buf, len(raw)+len(raw)/2)
	p := &parser{data: raw}
	if err := e.transcodeValue(p, 0); err != nil {
		return err
	}
	if p.skipSpace(); p.pos != len(p.data) {
		return errTranscode
	}
	return nil
}

// transcodeValue writes one value; depth counts the containers of raw
// around it, as parse counts them.
func (e *encoder) transcodeValue(p *parser, depth int) error {
	p.skipSpace()
	if p.pos == len(p.data) {
		return errTranscode
	}
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return errTranscode
		}
		p.pos++
		if c == '[' {
			return e.transcodeArray(p, depth+1)
		}
		return e.transcodeObject(p, depth+1)
	case c == '"':
		return e.transcodeString(p)
	case c == '-' || (c >= '0' && c <= '9'):
		return e.transcodeNumber(p)
	case p.literal("true"):
		e.buf = append(e.buf, "true"...)
	case p.literal("false"):
		e.buf = append(e.buf, "false"...)
	case p.literal("null"):
		e.buf = append(e.buf, "null"...)
	default:
		return errTranscode
	}
	return nil
}

func (e *encoder) transcodeArray(p *parser, depth int) error {
	if p.skipSpace(); p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	if err := e.enter(); err != nil {
		return errTranscode
	}
	e.buf = append(e.buf, '[')
	for i := 0; ; i++ {
		e.separate(i)
		if err := e.transcodeValue(p, depth); err != nil {
			return err
		}
		done, err := p.next(']')
		if err != nil {
			return errTranscode
		}
		if done {
			e.close(']')
			return nil
		}
	}
}

func (e *encoder) transcodeObject(p *parser, depth int) error {
	if p.skipSpace(); p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		e.buf = append(e.buf, "{}"...)
		return nil
	}
	if err := e.enter(); err != nil {
		return errTranscode
	}
	e.buf = append(e.buf, '{')
	var seen memberKeys
	for i := 0; ; i++ {
		if p.skipSpace(); p.pos == len(p.data) || p.data[p.pos] != '"' {
			return errTranscode
		}
		text, plain, err := p.strSpan()
		if err != nil {
			return errTranscode
		}
		key := text[1 : len(text)-1]
		if !plain {
			s, err := decodeStr(text, false)
			if err != nil {
				return errTranscode
			}
			key = []byte(s)
		}
		if !seen.add(key) {
			return errTranscode
		}
		if p.skipSpace(); p.pos == len(p.data) || p.data[p.pos] != ':' {
			return errTranscode
		}
		p.pos++
		e.separate(i)
		e.appendStringText(text, key, plain)
		e.buf = append(e.buf, e.keySep...)
		if err := e.transcodeValue(p, depth); err != nil {
			return err
		}
		done, err := p.next('}')
		if err != nil {
			return errTranscode
		}
		if done {
			e.close('}')
			return nil
		}
	}
}

// memberKeys are the keys of one object so far: in a fixed array while
// there are few (no allocation for an event's twenty), in a set after.
type memberKeys struct {
	few [32][]byte
	n   int
	set map[string]struct{}
}

// add records key and reports whether it is new.
func (m *memberKeys) add(key []byte) bool {
	if m.set == nil && m.n < len(m.few) {
		for _, k := range m.few[:m.n] {
			if bytes.Equal(k, key) {
				return false
			}
		}
		m.few[m.n] = key
		m.n++
		return true
	}
	if m.set == nil {
		m.set = make(map[string]struct{}, 2*len(m.few))
		for _, k := range m.few {
			m.set[string(k)] = struct{}{}
		}
	}
	if _, dup := m.set[string(key)]; dup {
		return false
	}
	m.set[string(key)] = struct{}{}
	return true
}

// appendStringText writes a string given its JSON text and decoded bytes:
// a plain string is its own encoding unless the style escapes non-ASCII.
func (e *encoder) appendStringText(text, decoded []byte, plain bool) {
	if plain && (!e.ascii || printablePrefix(decoded) == len(decoded)) {
		e.buf = append(e.buf, text...)
		return
	}
	e.buf = appendString(e.buf, string(decoded), e.ascii)
}

// transcodeString writes a string.
func (e *encoder) transcodeString(p *parser) error {
	text, plain, err := p.strSpan()
	if err != nil {
		return errTranscode
	}
	decoded := text[1 : len(text)-1]
	if !plain {
		s, err := decodeStr(text, false)
		if err != nil {
			return errTranscode
		}
		decoded = []byte(s)
	}
	e.appendStringText(text, decoded, plain)
	return nil
}

// transcodeNumber writes a number: an integer literal as it stands (Python
// keeps ints exact; "-0" is 0), anything else through the encoder's float
// rules.
func (e *encoder) transcodeNumber(p *parser) error {
	start := p.pos
	float, err := p.skipNumber()
	if err != nil {
		return errTranscode
	}
	text := p.data[start:p.pos]
	if float {
		if err := e.number(json.Number(text)); err != nil {
			return errTranscode
		}
		return nil
	}
	if string(text) == "-0" {
		text = text[1:]
	}
	e.buf = append(e.buf, text...)
	return nil
}
