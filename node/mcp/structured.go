package mcp

// structuredOf is a tool's text as its result's structuredContent: the
// same JSON value, written as encoding/json writes a json.RawMessage
// inside a result (compact, with '<', '>', '&', U+2028 and U+2029
// escaped), which is how the SDK path sends it. text is valid JSON as
// pyjson writes it, so one pass that drops the whitespace between tokens
// and escapes those characters is the whole conversion: no value is
// decoded or rendered a second time.
func structuredOf(text []byte) []byte {
	return appendStructured(make([]byte, 0, len(text)), text)
}

// appendStructured appends structuredOf(text) to dst.
func appendStructured(dst, text []byte) []byte {
	const hexDigits = "0123456789abcdef"
	run := 0 // start of the bytes not yet copied
	inString := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && c == '\\':
			i++ // the escaped byte is copied with its backslash
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			dst = append(dst, text[run:i]...)
			run = i + 1
		case c == '<' || c == '>' || c == '&':
			dst = append(append(dst, text[run:i]...), '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			run = i + 1
		case c == 0xe2 && i+2 < len(text) && text[i+1] == 0x80 && text[i+2]&^1 == 0xa8: // U+2028, U+2029
			dst = append(append(dst, text[run:i]...), '\\', 'u', '2', '0', '2', hexDigits[text[i+2]&0xf])
			i += 2
			run = i + 1
		}
	}
	return append(dst, text[run:]...)
}
