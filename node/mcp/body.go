package mcp

import (
	"io"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// readBody reads the request's body within the handler's limit: a body
// over it, announced by Content-Length or found while reading (so a
// chunked body cannot slip past), gets 413 with the hub's JSON-RPC
// "Request too large", and a body that cannot be read the parse error.
// false means the request was answered.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > h.maxBody {
		writeBodyRefusal(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, "Request too large")
		return nil, false
	}
	body, err := readLimited(r.Body, r.ContentLength, h.maxBody)
	switch {
	case err != nil:
		writeBodyRefusal(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error")
		return nil, false
	case int64(len(body)) > h.maxBody:
		writeBodyRefusal(w, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, "Request too large")
		return nil, false
	}
	return body, true
}

// writeBodyRefusal answers a body refused before it is read as JSON-RPC,
// as the hub's HTTP layer does: its JSON content type (with the charset)
// and the length.
func writeBodyRefusal(w http.ResponseWriter, status int, code int64, msg string) {
	body, _ := rpcError(nil, code, msg) // a null id always encodes
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// readLimited reads a request body of at most limit bytes, in one buffer of
// the announced size when there is one (size: Content-Length, or -1):
// a body longer than limit comes back with limit+1 bytes, for the caller
// to refuse.
func readLimited(r io.Reader, size, limit int64) ([]byte, error) {
	if size < 0 || size > limit {
		size = 512
	}
	buf := make([]byte, 0, size+1) // one spare byte sees the end without growing
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), limit+1)])
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > limit:
			return buf, nil
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		}
	}
}

// writeMethodRefusal answers a request to /mcp that is not a POST: the
// node serves streamable HTTP without sessions and without a GET stream
// (its answers are JSON, its waits long polls), so a GET that would open
// the stream and a DELETE that would end a session get 405 with Allow:
// POST, as the transport asks, and a JSON-RPC error that says why.
// Clients that listen continuously stop listening instead of retrying.
func writeMethodRefusal(w http.ResponseWriter, method string) {
	body, _ := rpcError(nil, jsonrpc.CodeInvalidRequest, "Method Not Allowed: "+method+
		" /mcp; this server takes POST only (no GET stream, no sessions)") // a null id always encodes
	h := w.Header()
	h.Set("Allow", http.MethodPost)
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusMethodNotAllowed)
	_, _ = w.Write(body)
}
