// Package pyhub is the one home of lsnode's compatibility with the Python
// hub (mempalace): whatever lsnode must write, read or refuse exactly as
// the hub does is decided in its packages, and nowhere else. What the
// compatibility is, and where lsnode differs on purpose, is
// docs/compatibility.md.
//
//   - pyjson: JSON as Python writes it (json.dumps in its styles, RFC 8785
//     for hashing) and the one JSON scanner, which parses for the
//     encoders and splits MCP request bodies (Reader); Loads, the hub's
//     json.loads of the files it reads, with CPython's error texts.
//   - pyrepr: repr() of a str, bool() and the type names of decoded
//     values, and where Python's UTF-8 codec cuts an ill-formed sequence.
//   - pynum: int() and float() of a text, and Python's reading of a JSON
//     number.
//   - pytime: the hub's time layouts, datetime.isoformat(), and its
//     periods in float seconds.
//   - pyhttp: parse_qsl, urlencode and http.server's error page.
//   - rules: the hub's validation rules and its error texts, shared by
//     the MCP tools, the HTTP routes and the store.
//   - syncwire: the /sync/* protocol, each request and answer defined
//     once for node/httpapi's routes, sync/hubpull and sync/fakehub.
//
// The packages import nothing of the module outside internal/pyhub (a
// rule of internal/importrules), so that the store, the node and the
// replication can all use them.
package pyhub
