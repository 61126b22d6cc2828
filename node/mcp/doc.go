// Package mcp is the node's MCP surface, POST /mcp: the tool catalog and
// its schemas, the reading and checking of tool arguments as the Python
// hub does, the tools themselves on the log (with the caller's identity
// applied), their envelopes and texts, the metrics of tool calls, and the
// JSON-RPC framing the hub's clients rely on, from the bare tools/call
// of its oldest clients to the streamable HTTP of the official SDKs.
//
// One Handler takes a request from its body to a tool (Handler.ServeHTTP):
// the body is read and capped once, the envelope screened once
// (screen.go), and nativeCall alone decides whether the handler answers
// (native.go: one tools/call or a ping, the requests nearly every client
// sends) or the go-sdk server does (sdk.go: initialize, tools/list and
// the corners where only the SDK knows its answer). Both paths run the
// same tools and write the same bytes.
//
// Clients of every MCP era are served (era.go; docs/compatibility.md,
// "MCP client eras"): the hub's bare clients get its bytes, with isError
// on refusals; the clients from 2025-06-18 on also output schemas
// (output.go) and structured content (structured.go), which for pages of
// events is spliced from a cache of rendered events (page.go); the
// sessionless protocol 2026-07-28 also gets the server's identity in
// every result's _meta (sessionless.go). Read-only resources
// (resources.go) serve the tools' answers, and a wait that asks for
// progress is answered as a stream (progress.go).
//
// It does not authenticate (node/auth tells the identity, node/httpapi
// checks Host, Origin and the token before the handler runs), and it
// imports neither node nor node/httpapi: the node hands it the log, the
// roster payload and the per-client cap of waits (WaitSlots).
package mcp
