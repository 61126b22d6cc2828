package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// errNotJSONObject is what objectMembers reports for anything but one
// JSON object text.
var errNotJSONObject = errors.New("not one JSON object")

// rawMember is one member of a JSON object: the key decoded, the value as
// its exact text.
type rawMember struct {
	key   string
	value json.RawMessage
}

// objectMembers splits one JSON object text into its members in order,
// repeated keys included, without decoding the values: the request path
// reads an envelope's members or a call's arguments this way in one pass
// instead of through a decoder per value. Keys decode as encoding/json
// decodes them; the values are the bytes encoding/json would hold in a
// json.RawMessage.
func objectMembers(raw []byte) (members, error) {
	if !json.Valid(raw) {
		return nil, errNotJSONObject
	}
	return validMembers(raw)
}

// validMembers is objectMembers of a text already known to be valid JSON,
// such as a value inside a body objectMembers has split: it skips the
// validation pass.
func validMembers(raw []byte) (members, error) {
	s := textScan{data: raw}
	if s.space(); !s.eat('{') {
		return nil, errNotJSONObject
	}
	out := make(members, 0, 8) // a request's envelope, params and arguments fit
	if s.space(); s.eat('}') {
		return out, nil
	}
	for {
		s.space()
		start := s.pos
		s.skipString()
		key, err := decodeString(raw[start:s.pos])
		if err != nil {
			return nil, err
		}
		s.space()
		s.eat(':')
		s.space()
		start = s.pos
		s.skipValue()
		out = append(out, rawMember{key: key, value: raw[start:s.pos]})
		if s.space(); !s.eat(',') {
			return out, nil // valid JSON: the object's closing brace
		}
	}
}

// members are the members of one JSON object in order, repeated keys
// included. A request's envelope and params are read this way rather than
// through a map: they have a handful of members, looked up a few times.
type members []rawMember

// get is the value of key as encoding/json decodes an object into a map
// (a repeated key takes its last value); nil when absent.
func (m members) get(key string) json.RawMessage {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i].key == key {
			return m[i].value
		}
	}
	return nil
}

// asMap is m as encoding/json decodes the object into a map.
func (m members) asMap() map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for _, member := range m {
		out[member.key] = member.value
	}
	return out
}

// jsonValue decodes one JSON value as encoding/json does with UseNumber:
// plain strings, numbers and literals directly, anything else through
// encoding/json.
func jsonValue(raw json.RawMessage) (any, error) {
	if len(raw) > 0 {
		switch c := raw[0]; {
		case c == '"' && plainString(raw):
			return internText(raw[1 : len(raw)-1]), nil
		case c == '-' || (c >= '0' && c <= '9'):
			if json.Valid(raw) {
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
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// decodeString decodes one JSON string text.
func decodeString(raw []byte) (string, error) {
	if plainString(raw) {
		return internText(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// plainString reports whether raw is a quoted string that decodes to its
// own bytes: no escape, no control character, valid UTF-8.
func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return utf8.Valid(body)
}

// textScan walks a JSON text already known to be valid.
type textScan struct {
	data []byte
	pos  int
}

func (s *textScan) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *textScan) eat(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// skipString moves past the string starting at pos.
func (s *textScan) skipString() {
	for s.pos++; s.pos < len(s.data); s.pos++ {
		switch s.data[s.pos] {
		case '\\':
			s.pos++
		case '"':
			s.pos++
			return
		}
	}
}

// skipValue moves past the value starting at pos.
func (s *textScan) skipValue() {
	switch s.data[s.pos] {
	case '"':
		s.skipString()
	case '{', '[':
		depth := 0
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					s.pos++
					return
				}
			}
			s.pos++
		}
	default: // a number or a literal runs to the next delimiter
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.pos++
		}
	}
}
