package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
)

// maxComposeBytes bounds a compose request: an event body (256 KiB at
// most) with its fields, JSON-escaped.
const maxComposeBytes = 2 << 20

// composeTools are the MCP tools the compose form may call, by the name
// the page gives: an ask or an answer is an event_append, an ack an
// event_ack.
var composeTools = map[string]string{
	"event_append": "mempalace_event_append",
	"event_ack":    "mempalace_event_ack",
}

// handleCompose answers POST /ui/api/compose {"tool": "event_append" or
// "event_ack", "arguments": {...}}: the tool runs in process with the
// session's identity (ToolCaller), so the hub's argument rules, the
// read-only gate and the token's write_as apply as on POST /mcp, and a
// refused write stores nothing. The answer is the tool's payload: 200
// with "success": true, 400 with the refusal.
func (c *console) handleCompose(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	var in struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxComposeBytes)).Decode(&in); err != nil {
		writeConsoleError(w, http.StatusBadRequest, `compose takes {"tool": "event_append" or "event_ack", "arguments": {...}}`)
		return
	}
	tool, ok := composeTools[in.Tool]
	if !ok {
		writeConsoleError(w, http.StatusBadRequest, "compose writes with event_append or event_ack, not "+quoteTool(in.Tool))
		return
	}
	text, err := c.tools.CallTool(r.Context(), tool, in.Arguments)
	var refused interface{ RPCCode() int }
	switch {
	case errors.As(err, &refused) && refused.RPCCode() == rpcReadOnly:
		writeConsoleJSON(w, http.StatusForbidden, map[string]any{"success": false, "error": err.Error()})
		return
	case errors.As(err, &refused) && refused.RPCCode() != rpcInternal:
		writeConsoleJSON(w, http.StatusBadRequest, map[string]any{"success": false, "error": err.Error()})
		return
	case err != nil:
		c.s.log.Error("console compose failed", "tool", tool, "err", err)
		writeConsoleJSON(w, http.StatusInternalServerError, map[string]any{"success": false, "error": "internal error"})
		return
	}
	var result struct {
		Success bool `json:"success"`
	}
	status := http.StatusOK
	if json.Unmarshal(text, &result) != nil || !result.Success {
		status = http.StatusBadRequest
	}
	writeBody(w, status, contentJSON, text)
}

// JSON-RPC codes of the tools' refusals that compose tells apart.
const (
	rpcReadOnly = -32003 // a writer on a read-only node
	rpcInternal = -32000 // the tool failed inside
)

func quoteTool(name string) string {
	b, _ := json.Marshal(name) // a string always encodes
	return string(b)
}
