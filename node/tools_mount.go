package node

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// JSON-RPC bodies the mount answers itself, byte for byte as the Python
// hub sends them.
var (
	rpcTooLarge   = []byte(`{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Request too large"}}`)
	rpcParseError = []byte(`{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}`)
)

// newMCPHandler builds the MCP tools (node/mcp.go) on st, served at POST
// /mcp behind the request policy, sharing waits with the HTTP surface's
// long polls.
func (n *Node) newMCPHandler(st MCPStore, waits WaitSlots) http.Handler {
	opts := MCPOptions{
		Store:    st,
		ReadOnly: n.cfg.ReadOnly,
		Roster: func(ctx context.Context) (any, error) {
			return n.api.PeersPayload(ctx), nil
		},
		Drain:           n.drain,
		MaxWait:         n.cfg.MaxLongPoll, // within the write deadline mcpMount sets
		WriteTimeout:    n.cfg.WriteTimeout,
		Waits:           waits,
		Version:         n.cfg.Version,
		MaxRequestBytes: n.cfg.MaxRequestBytes,
		Logger:          n.log,
		RequireIdentity: n.tokens != nil,
		Metrics:         n.reg,
	}
	return mcpMount(opts, NewMCPHandler(opts))
}

// WaitSlots caps the concurrent mempalace_event_waits of one client; the
// HTTP surface's per-client cap of long polls (httpapi.ClientSlots) is
// one, shared with /logstream/events.
type WaitSlots interface {
	// Acquire takes a slot for r's client; false means it is at its cap.
	Acquire(r *http.Request) bool
	// Release returns the slot Acquire took for r.
	Release(r *http.Request)
	// Refusal is the text of a refusal and its Retry-After, in seconds.
	Refusal() (text, retryAfter string)
}

// mcpMount guards the MCP handler: a body over MaxRequestBytes gets 413
// with the JSON-RPC error (checked on Content-Length and again while
// reading, so a chunked body cannot slip past), an unreadable body gets
// the parse error, a mempalace_event_wait call beyond the client's cap of
// concurrent waits gets 429 with Retry-After and a JSON-RPC error, and
// the write deadline is widened to cover the longest event_wait.
func mcpMount(opts MCPOptions, next http.Handler) http.Handler {
	limit := opts.MaxRequestBytes
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			writeFixed(w, http.StatusRequestEntityTooLarge, rpcTooLarge)
			return
		}
		body, err := readBody(r.Body, r.ContentLength, limit)
		switch {
		case err != nil:
			writeFixed(w, http.StatusBadRequest, rpcParseError)
			return
		case int64(len(body)) > limit:
			writeFixed(w, http.StatusRequestEntityTooLarge, rpcTooLarge)
			return
		}
		if wait, id := eventWaitCall(body); wait && opts.Waits != nil {
			if !opts.Waits.Acquire(r) {
				text, retryAfter := opts.Waits.Refusal()
				w.Header().Set("Retry-After", retryAfter)
				writeRPCError(w, http.StatusTooManyRequests, id, codeToolFailure, text)
				return
			}
			defer opts.Waits.Release(r)
		}
		r.Body, r.ContentLength = newBufferedBody(body), int64(len(body))
		if opts.WriteTimeout > 0 {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(opts.MaxWait + opts.WriteTimeout))
		}
		next.ServeHTTP(w, r)
	})
}

// writeFixed writes one of the fixed JSON-RPC bodies, as the hub does:
// with its length and the JSON content type of its other answers.
func writeFixed(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
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
