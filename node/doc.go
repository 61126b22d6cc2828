// Package node assembles one lsnode: the store, the HTTP surface (MCP
// tools, SSE, /logstream/events, /sync/*, /healthz, /readyz, /statusz,
// /metrics, /debug/pprof/), replication (gRPC) and membership (gossip,
// node/membership). It is the
// composition root: it owns every goroutine it starts (Start/Shutdown, one
// WaitGroup), the Prometheus registry (injected, served with
// promhttp.HandlerFor) and the mapping of errors to HTTP statuses
// (errorStatus, one function).
//
// The HTTP surface answers as the Python hub does (mempalace-wire.md §3.7,
// §4, §5), with these deliberate differences:
//
//   - Policy order is the hub's: Host pin (loopback binds only), Origin,
//     then the bearer token (constant time, whole header), then the cap of
//     POST /mcp (MaxRequestBytes, 16 MiB by default). Refusals are the
//     hub's HTML pages (401, 403, 404).
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
//
// Shutdown runs in logged phases: stop accepting and end streams and long
// polls, let in-flight requests finish (until the context expires), stop
// the node's goroutines, close the store.
package node
