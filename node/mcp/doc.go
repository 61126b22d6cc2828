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
// It does not authenticate (node/auth tells the identity, node/httpapi
// checks Host, Origin and the token before the handler runs), and it
// imports neither node nor node/httpapi: the node hands it the log, the
// roster payload and the per-client cap of waits (WaitSlots).
package mcp
