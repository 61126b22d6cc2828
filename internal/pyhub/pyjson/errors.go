package pyjson

import "errors"

// Sentinel errors; test them with errors.Is.
var (
	// ErrSyntax marks input that is not one valid JSON text.
	ErrSyntax = errors.New("pyjson: invalid JSON")
	// ErrNotObject marks a JSON text whose top-level value is not an object.
	ErrNotObject = errors.New("pyjson: not a JSON object")
	// ErrUnsupported marks a value that has no JSON form: NaN, an infinity,
	// a map with non-string keys, a channel or a function.
	ErrUnsupported = errors.New("pyjson: unsupported value")
	// ErrTooDeep marks nesting deeper than maxDepth, where Python would
	// hit its recursion limit.
	ErrTooDeep = errors.New("pyjson: nesting too deep")
)
