package mcp

import (
	"context"
	"encoding/json"
)

// CallError is a tool call refused before or around its tool, as the
// JSON-RPC error a tools/call would have answered: -32601 an unknown
// tool, -32602 arguments that are unknown, uncoercible or missing,
// -32003 a writer on a read-only node, -32000 a tool that failed inside.
type CallError struct {
	Code    int
	Message string
}

func (e *CallError) Error() string { return e.Message }

// RPCCode is the JSON-RPC error code, for callers that do not import
// this package.
func (e *CallError) RPCCode() int { return e.Code }

// codeUnknownTool is JSON-RPC's "method not found", the hub's answer to
// a tools/call of a tool it does not have.
const codeUnknownTool = -32601

// CallTool runs one tool in process, exactly as a tools/call of name
// with arguments args runs it on POST /mcp: the same argument rules, the
// read-only gate, the caller identity of ctx (auth.WithIdentity) and its
// write and read checks, and the same metrics. It returns the text of
// the result's one content item: the tool's JSON payload, refusals of
// its input included ({"success": false, "error": ...} for a writer).
// The web console's compose form writes through it (node/httpapi).
func (h *Handler) CallTool(ctx context.Context, name string, args json.RawMessage) ([]byte, error) {
	spec, ok := h.specs[name]
	if !ok {
		return nil, &CallError{Code: codeUnknownTool, Message: "Unknown tool: " + name}
	}
	res, rpcErr := h.tools.run(withCaller(ctx), spec, args, false)
	if rpcErr != nil {
		return nil, &CallError{Code: int(rpcErr.Code), Message: rpcErr.Message}
	}
	return res.appendText(nil), nil
}
