package node

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// JSON-RPC bodies the mount answers itself, byte for byte as the Python
// hub sends them.
var (
	rpcTooLarge   = []byte(`{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Request too large"}}`)
	rpcParseError = []byte(`{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}`)
)

// newMCPHandler builds the MCP tools (node/mcp.go) on st, served at POST
// /mcp behind mcpMount and the request policy.
func (n *Node) newMCPHandler(st MCPStore) http.Handler {
	return NewMCPHandler(MCPOptions{
		Store:    st,
		ReadOnly: n.cfg.ReadOnly,
		Roster: func(ctx context.Context) (any, error) {
			return n.surface.PeersPayload(ctx), nil
		},
		Drain:           n.drain,
		MaxWait:         n.cfg.MaxLongPoll, // within the write deadline mcpMount sets
		Version:         n.cfg.Version,
		MaxRequestBytes: n.cfg.MaxRequestBytes,
		Logger:          n.log,
		RequireIdentity: n.tokens != nil,
		Metrics:         n.reg,
	})
}

// mcpMount guards the MCP handler: a body over MaxRequestBytes gets 413
// with the JSON-RPC error (checked on Content-Length and again while
// reading, so a chunked body cannot slip past), an unreadable body gets
// the parse error, a mempalace_event_wait call beyond the client's cap of
// concurrent waits gets 429 with Retry-After and a JSON-RPC error, and
// the write deadline is widened to cover the longest event_wait.
func (s *surface) mcpMount(next http.Handler) http.Handler {
	limit := s.cfg.MaxRequestBytes
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			writeBody(w, http.StatusRequestEntityTooLarge, contentJSON, rpcTooLarge)
			return
		}
		body, err := readBody(r.Body, r.ContentLength, limit)
		switch {
		case err != nil:
			writeBody(w, http.StatusBadRequest, contentJSON, rpcParseError)
			return
		case int64(len(body)) > limit:
			writeBody(w, http.StatusRequestEntityTooLarge, contentJSON, rpcTooLarge)
			return
		}
		if wait, id := eventWaitCall(body); wait {
			client := clientKey(r)
			if !s.clientWaits.acquire(client) {
				w.Header().Set("Retry-After", clientRetryAfter)
				writeRPCError(w, http.StatusTooManyRequests, id, codeToolFailure, s.clientWaits.refusalText())
				return
			}
			defer s.clientWaits.release(client)
		}
		r.Body, r.ContentLength = newBufferedBody(body), int64(len(body))
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.cfg.MaxLongPoll + s.cfg.WriteTimeout))
		next.ServeHTTP(w, r)
	})
}

// eventWaitCall reports whether body is a tools/call of
// mempalace_event_wait, and its id. A body that holds neither the tool's
// name nor a \u escape (the only way JSON can spell a letter otherwise)
// cannot name it and is not decoded, keeping the check off the path of
// every other call.
func eventWaitCall(body []byte) (bool, json.RawMessage) {
	if !bytes.Contains(body, []byte(toolEventWait)) && !bytes.Contains(body, []byte(`\u`)) {
		return false, nil
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &env) != nil || env.Method != "tools/call" || env.Params.Name != toolEventWait {
		return false, nil
	}
	return true, env.ID
}
