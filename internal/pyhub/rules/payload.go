package rules

import "strings"

// Body validates verbatim payload text (an event body, or another field
// with its own limit): nil is ""; it must be a string with no NUL, and
// at most maxBytes UTF-8 bytes once lone surrogates become U+FFFD. Empty
// is allowed; nothing is ever truncated.
func Body(v any, maxBytes int, field string) (string, error) {
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", invalidf("%s must be a string", field)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", invalidf("%s contains null bytes", field)
	}
	s = fixSurrogates(s)
	if len(s) > maxBytes {
		return "", invalidf("%s is %d bytes; maximum is %d bytes", field, len(s), maxBytes)
	}
	return s, nil
}

// Content validates an artifact's content: a non-empty string with no
// NUL, at most MaxContentBytes UTF-8 bytes.
func Content(v any) (string, error) {
	if s, ok := v.(string); !ok || s == "" {
		return "", invalidf("content must be a non-empty string")
	}
	return Body(v, MaxContentBytes, "content")
}
