// Package pyjson writes JSON byte-for-byte as the Python hub does,
// canonicalises JSON per RFC 8785 (JCS), and holds the one JSON scanner:
// the parser the encoders read json.RawMessage values with, which also
// splits a JSON-RPC body into its members for the MCP request path
// (Reader: what json.Valid accepts, values as encoding/json decodes
// them, in one pass, or with a lone surrogate escape kept as json.loads
// keeps it). Loads reads a file the hub reads as json.loads does, with
// CPython's error texts and positions.
//
// Four encoders share one value model:
//
//   - Dumps is json.dumps(v, ensure_ascii=False, sort_keys=True): the
//     canonical text of every metadata_json column.
//   - DumpsIndent is json.dumps(v, indent=2, ensure_ascii=False): the text of
//     an MCP tool result.
//   - Compact is json.dumps(v): the body of the /sync/* routes.
//   - JCS is RFC 8785: a form that survives re-serialisation by any
//     conforming encoder, used to compare and hash ops.
//
// Values may be nil, bool, string, json.Number, any Go integer or float,
// Object (an object whose members keep their order), json.RawMessage
// (parsed, then re-encoded in the caller's style), json.Marshaler, and
// slices, arrays, pointers and string-keyed maps of these. Go maps carry no
// order, so their keys are always written sorted. Anything else (a struct,
// say) goes through encoding/json first.
//
// Numbers follow Python: json.Number integer literals are kept exactly
// (Python ints are arbitrary precision); json.Number literals with a
// fraction or exponent, and Go floats, become Python floats and are written
// as repr(float) ("1.0", "1e-05", "1e+16"). Python would write NaN and
// Infinity, which are not JSON; here they are refused with ErrUnsupported.
// Invalid UTF-8 is written as U+FFFD, one per bad byte.
package pyjson
