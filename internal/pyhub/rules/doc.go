// Package rules holds the Python hub's validation rules for coordination
// log writes and reads, and the exact error texts clients match on (see
// docs/compatibility.md).
//
// Every check takes an any: a raw value as decoded by encoding/json with
// UseNumber (string, json.Number, bool, nil, []any, map[string]any), or a
// plain Go string or integer. The MCP layer (raw arguments) and the store
// (typed fields) therefore share one rule set. A check returns the
// sanitized value, or an *Error whose text is exactly what the Python hub
// would raise and which matches ErrInvalid under errors.Is.
//
// Python semantics are followed where they show: lengths count code
// points, str.strip() strips Unicode whitespace, bool passes as an int,
// and repr() renders the offending value. A Go string cannot hold a lone
// surrogate; invalid UTF-8 plays that part and becomes U+FFFD, one per
// encoded surrogate, as Python's strip_lone_surrogates does.
package rules
