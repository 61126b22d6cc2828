// Package httpapi is the node's HTTP surface: the routing table and the
// request policy in front of every route, the read routes
// (/logstream/stream, /logstream/events, /sync/*), the probes and status
// pages (/healthz, /readyz, /statusz, /metrics, /debug/pprof/), the
// operator routes (/lsnode/agents, /lsnode/keys), the per-client caps of
// streams and long polls, and the settings of the HTTP server. It maps
// errors to HTTP statuses in one place (errorStatus).
//
// It does not hold the MCP tools: POST /mcp is mounted from node/mcp,
// which reads and caps the body itself and shares the cap of waits
// (Server.Waits). It holds no replication or membership either: what it
// shows of them comes through small interfaces the node implements
// (RosterFunc, Replication, Integrity, Keyring), and it imports neither
// node nor sync.
//
// It also serves the web console at /ui/ once EnableConsole mounts it
// (console*.go): the page and its files, embedded from ui/, and a JSON
// API whose sessions are signed in with a token and whose writes carry a
// CSRF token and go through the MCP tools (ToolCaller).
//
// The surface answers as the Python hub does (docs/compatibility.md; the
// /sync/* shapes are internal/pyhub/syncwire's), with these deliberate
// differences:
//
//   - Policy order is the hub's: Host pin (loopback binds only), Origin,
//     then the bearer token (constant time, whole header), then, on POST
//     /mcp, the cap of the body (node/mcp). Refusals are the hub's HTML
//     pages (401, 403, 404), but for /mcp's 401, which carries a bearer
//     challenge and a JSON-RPC error MCP clients can read; GET and DELETE
//     /mcp are the MCP handler's (405).
//   - Responses keep the connection alive; the hub sends Connection: close
//     on every non-streaming answer, which only costs clients a handshake
//     per request. The SSE cap refusal (503) still closes, as in the hub.
//   - Unexpected errors are a 500 {"error": "internal error"} (the cause is
//     logged), never a dropped connection.
//   - /logstream/stream is pushed on commit (store.Watch) instead of
//     polled every 0.3–0.7 s, sends its headers at once, and also starts
//     from a portable cursor (cursor=...), then reports the cursor after
//     each page as a ": cursor <token>" comment.
//   - Server timeouts bound headers (10 s by default), bodies (120 s) and
//     writes (WriteTimeout, 60 s); streams and long polls lift the write
//     deadline and bound each write instead, so a client that stops
//     reading is dropped rather than holding a slot.
package httpapi
