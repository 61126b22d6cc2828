// Package mcpdrive drives lsnode's MCP surface with real MCP clients -
// the official go-sdk client negotiating the sessionless protocol or
// pinned to an initialize era, github.com/mark3labs/mcp-go with
// continuous listening, and a hub-shaped client posting bare JSON-RPC -
// through every tool, every resource and every failure path, and checks
// each answer as docs/compatibility.md ("MCP client eras") promises it:
// isError exactly on refusals, the structured content equal to the text
// and valid against the tool's output schema where the era has them, and
// the text byte for byte the hub's (the bare client's answer to the same
// call). It is test support, shared by node/mcp's tests and the e2e
// tests against a running node.
package mcpdrive
