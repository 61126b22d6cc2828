package mcp

import (
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// argValue decodes one argument's JSON text as Python's json.loads
// decodes it, where that differs from encoding/json (jsonValue): an
// escaped UTF-16 surrogate that is not half of a pair ("a\udcffb") stays
// a lone surrogate, held as its WTF-8 bytes, where encoding/json makes it
// U+FFFD. The rules read such bytes as Python's lone surrogate: stored
// text gets U+FFFD (as the hub's strip_lone_surrogates does) and an error
// quoting the value shows \udcff (as the hub's repr does).
func argValue(raw json.RawMessage) (any, error) {
	if !hasSurrogateEscape(raw) {
		return jsonText.Value(raw)
	}
	d := loads{data: raw}
	return d.value(), nil
}

// hasSurrogateEscape reports whether raw, valid JSON, holds a \uD800 to
// \uDFFF escape.
func hasSurrogateEscape(raw []byte) bool {
	for i := 0; i+5 < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if raw[i+1] == 'u' && (raw[i+2] == 'd' || raw[i+2] == 'D') && isHighHex(raw[i+3]) {
			return true
		}
		i++ // the escaped byte
	}
	return false
}

// isHighHex reports a hex digit 8 to f: the second digit of a surrogate.
func isHighHex(c byte) bool {
	return (c >= '8' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// loads decodes a valid JSON text into the values encoding/json makes
// with UseNumber, strings as json.loads makes them.
type loads struct {
	data []byte
	pos  int
}

func (d *loads) space() {
	for d.pos < len(d.data) && (d.data[d.pos] == ' ' || d.data[d.pos] == '\t' || d.data[d.pos] == '\n' || d.data[d.pos] == '\r') {
		d.pos++
	}
}

func (d *loads) value() any {
	d.space()
	switch c := d.data[d.pos]; c {
	case '{':
		out := map[string]any{}
		d.pos++
		for d.space(); d.data[d.pos] != '}'; d.space() {
			key := d.str()
			d.space()
			d.pos++ // ':'
			out[key] = d.value()
			if d.space(); d.data[d.pos] == ',' {
				d.pos++
				d.space()
			}
		}
		d.pos++
		return out
	case '[':
		out := []any{}
		d.pos++
		for d.space(); d.data[d.pos] != ']'; d.space() {
			out = append(out, d.value())
			if d.space(); d.data[d.pos] == ',' {
				d.pos++
			}
		}
		d.pos++
		return out
	case '"':
		return d.str()
	case 't':
		d.pos += len("true")
		return true
	case 'f':
		d.pos += len("false")
		return false
	case 'n':
		d.pos += len("null")
		return nil
	}
	start := d.pos
	for d.pos < len(d.data) && isNumberByte(d.data[d.pos]) {
		d.pos++
	}
	return json.Number(d.data[start:d.pos])
}

func isNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str decodes the string at pos: escapes as JSON has them, a surrogate
// pair as its character, a lone surrogate as its WTF-8 bytes.
func (d *loads) str() string {
	d.pos++ // the opening quote
	var out []byte
	for {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(out)
		case c >= utf8.RuneSelf:
			// A byte that is not UTF-8 is U+FFFD, as encoding/json (and
			// the path without surrogates) reads it.
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, d.data[d.pos:d.pos+size]...)
			}
			d.pos += size
			continue
		case c != '\\':
			out = append(out, c)
			d.pos++
			continue
		}
		esc := d.data[d.pos+1]
		d.pos += 2
		switch esc {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := d.hex4()
			if utf16.IsSurrogate(r) && r < 0xDC00 && d.pos+6 <= len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
				save := d.pos
				d.pos += 2
				if pair := utf16.DecodeRune(r, d.hex4()); pair != utf8.RuneError {
					out = utf8.AppendRune(out, pair)
					continue
				}
				d.pos = save
			}
			out = appendWTF8(out, r)
		default: // '"', '\\', '/'
			out = append(out, esc)
		}
	}
}

// hex4 reads the four hex digits at pos.
func (d *loads) hex4() rune {
	n, _ := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 16) // valid JSON: four hex digits
	d.pos += 4
	return rune(n)
}

// appendWTF8 appends r as UTF-8 would write it, surrogates included.
func appendWTF8(dst []byte, r rune) []byte {
	if !utf16.IsSurrogate(r) {
		return utf8.AppendRune(dst, r)
	}
	return append(dst, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
}
