package pyjson

import (
	"bytes"
	"encoding/json"
)

// stdMaxDepth is encoding/json's nesting limit, which Members keeps so
// that it accepts exactly the texts encoding/json accepts.
const stdMaxDepth = 10000

// RawMember is one member of a JSON object: its key decoded, its value as
// its exact text.
type RawMember struct {
	Key   string
	Value json.RawMessage
}

// RawObject is the members of one JSON object in order, repeated keys
// included. A JSON-RPC envelope and its params are read this way rather
// than through a map: they have a handful of members, looked up a few
// times.
type RawObject []RawMember

// Get is the value of key as encoding/json decodes an object into a map
// (a repeated key takes its last value); nil when absent.
func (o RawObject) Get(key string) json.RawMessage {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return o[i].Value
		}
	}
	return nil
}

// Map is o as encoding/json decodes the object into a map.
func (o RawObject) Map() map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(o))
	for _, m := range o {
		out[m.Key] = m.Value
	}
	return out
}

// Reader reads JSON texts as encoding/json does, in one pass of the
// scanner that parses for the encoders: the MCP request path splits an
// envelope, its params and a call's arguments with it.
type Reader struct {
	// Intern, when set, makes the strings of keys and of plain string
	// values (no escape, valid UTF-8) from their bytes, so that texts
	// every request repeats need not be allocated each time. nil copies.
	Intern func([]byte) string
	// LoneSurrogates makes Value keep an escaped UTF-16 surrogate that
	// is not half of a pair ("a\udcffb") as Python's json.loads does: a
	// lone surrogate, held as its WTF-8 bytes (surrogates.go), in string
	// values and in the keys of objects within them, where encoding/json
	// makes it U+FFFD. Everything else decodes as without it; Members'
	// keys are unaffected.
	LoneSurrogates bool
}

// Members splits one JSON object text into its members in order,
// repeated keys included, without decoding the values. It accepts exactly
// what json.Valid accepts (invalid UTF-8 in strings, nesting up to
// encoding/json's limit); keys decode as encoding/json decodes them, and
// each value is the subslice of raw that encoding/json would hold in a
// json.RawMessage. Errors are ErrNotObject for a valid text that is not
// an object, ErrSyntax for anything else.
func (r Reader) Members(raw []byte) (RawObject, error) {
	p := &parser{data: raw}
	if p.skipSpace(); p.pos == len(p.data) || p.data[p.pos] != '{' {
		if err := p.skip(0, stdMaxDepth); err != nil {
			return nil, err
		}
		if err := p.end(); err != nil {
			return nil, err
		}
		return nil, ErrNotObject
	}
	p.pos++
	out := make(RawObject, 0, 8) // a request's envelope, params and arguments fit
	if p.skipSpace(); p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return out, p.end()
	}
	for {
		if p.skipSpace(); p.pos == len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("object key is not a string")
		}
		text, plain, err := p.strSpan()
		if err != nil {
			return nil, err
		}
		key, err := r.text(text, plain)
		if err != nil {
			return nil, err
		}
		if p.skipSpace(); p.pos == len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("missing ':' after object key")
		}
		p.pos++
		p.skipSpace()
		start := p.pos
		if err := p.skip(1, stdMaxDepth); err != nil {
			return nil, err
		}
		out = append(out, RawMember{Key: key, Value: raw[start:p.pos]})
		done, err := p.next('}')
		if err != nil {
			return nil, err
		}
		if done {
			return out, p.end()
		}
	}
}

// Value decodes one JSON value as encoding/json decodes it with
// UseNumber (string, json.Number, bool, nil, []any, map[string]any):
// plain strings, numbers and literals by the scanner, anything else
// through encoding/json, but for a value holding a surrogate escape
// under LoneSurrogates, which the scanner reads whole. raw is one value
// without surrounding space, as Members returns them.
func (r Reader) Value(raw []byte) (any, error) {
	if len(raw) > 0 {
		p := &parser{data: raw}
		switch c := raw[0]; {
		case c == '"':
			if text, plain, err := p.strSpan(); err == nil && plain && p.pos == len(raw) {
				return r.text(text, true)
			}
		case c == '-' || (c >= '0' && c <= '9'):
			if _, err := p.skipNumber(); err == nil && p.pos == len(raw) {
				return json.Number(raw), nil
			}
		case string(raw) == "true":
			return true, nil
		case string(raw) == "false":
			return false, nil
		case string(raw) == "null":
			return nil, nil
		}
	}
	if r.LoneSurrogates && hasSurrogateEscape(raw) {
		return keepingSurrogates(raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// keepingSurrogates is Value of raw under LoneSurrogates: the scanner's
// parse, nesting up to encoding/json's limit, lone surrogates kept, its
// objects made the maps encoding/json makes (a repeated key takes its
// last value, as in an Object).
func keepingSurrogates(raw []byte) (any, error) {
	p := &parser{data: raw, depthLimit: stdMaxDepth, keepSurrogates: true}
	v, err := p.value(0)
	if err == nil {
		err = p.end()
	}
	if err != nil {
		return nil, err
	}
	return asMaps(v), nil
}

// asMaps is a parsed value with each Object made a map.
func asMaps(v any) any {
	switch x := v.(type) {
	case Object:
		m := make(map[string]any, len(x))
		for _, member := range x {
			m[member.Key] = asMaps(member.Value)
		}
		return m
	case []any:
		for i := range x {
			x[i] = asMaps(x[i])
		}
	}
	return v
}

// text is the string a string's JSON text decodes to, interned when it
// is plain.
func (r Reader) text(text []byte, plain bool) (string, error) {
	if plain && r.Intern != nil {
		return r.Intern(text[1 : len(text)-1]), nil
	}
	return decodeStr(text, plain)
}
