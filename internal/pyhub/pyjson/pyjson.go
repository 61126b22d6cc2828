package pyjson

// Dumps returns json.dumps(v, ensure_ascii=False, sort_keys=True): keys
// sorted by code point at every level, ", " and ": " separators, non-ASCII
// characters written as they are. It is the canonical metadata_json text.
func Dumps(v any) ([]byte, error) {
	return encode(v, sortedStyle)
}

// Canonical parses a JSON object text (a repeated key takes its last
// value, as in Python) and returns Dumps of it. It fails with ErrSyntax for
// invalid JSON and ErrNotObject for a valid text that is not an object.
func Canonical(raw []byte) ([]byte, error) {
	v, err := parse(raw)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(Object); !ok {
		return nil, ErrNotObject
	}
	return Dumps(v)
}

// DumpsIndent returns json.dumps(v, indent=2, ensure_ascii=False): members
// in the order given (Object, or a json.RawMessage's own order), items
// separated by "," and a newline, empty containers as {} and [].
func DumpsIndent(v any) ([]byte, error) {
	return encode(v, indentStyle)
}

// Compact returns json.dumps(v): members in the order given, ", " and ": "
// separators, everything outside printable ASCII escaped as \uxxxx with
// lowercase hex and surrogate pairs.
func Compact(v any) ([]byte, error) {
	return encode(v, compactStyle)
}

// AppendCompact appends Compact of the JSON text raw to dst; on error it
// returns dst as it was. A stream writing many values (an SSE page)
// renders them into one buffer this way.
func AppendCompact(dst, raw []byte) ([]byte, error) {
	e := encoder{style: compactStyle, buf: dst}
	if err := e.raw(raw); err != nil {
		return dst, err
	}
	return e.buf, nil
}

// JCS returns the RFC 8785 canonical form of one JSON text: no
// whitespace, object keys sorted by UTF-16 code units, numbers as
// ECMAScript doubles, strings with minimal escaping. A repeated key takes
// its last value (RFC 8785 expects I-JSON, which has none).
func JCS(raw []byte) ([]byte, error) {
	v, err := parse(raw)
	if err != nil {
		return nil, err
	}
	return encode(v, jcsStyle)
}
