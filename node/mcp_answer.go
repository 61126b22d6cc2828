package node

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"

	"github.com/lsnode/lsnode/store/pyjson"
)

// placeholderID is the id a request is forwarded with when the SDK would
// not echo its own: the hub answers with any id as Python decoded it,
// while the SDK rounds integers beyond 2^53, turns 1.0 into 1 and refuses
// ids that are neither numbers nor strings.
const placeholderID = `"lsnode.request-id"`

// sdkAnswer holds the SDK's answer to a request and sends it as the hub
// would: with the request's own id where the request was forwarded with
// placeholderID, and for tools/list without the cache-control members
// go-sdk adds to every list result (ttlMs and cacheScope), which the
// hub's {"tools": [...]} does not have.
type sdkAnswer struct {
	http.ResponseWriter
	id        []byte // the request's id as the hub writes it; nil: the SDK echoes it right
	listTools bool
	status    int
	buf       bytes.Buffer
}

// newSDKAnswer returns the holder of the answer to req, or nil when the
// SDK's answer goes out as it is.
func newSDKAnswer(w http.ResponseWriter, req rpcRequest) *sdkAnswer {
	id := hubID(req.env.get("id"))
	listTools := req.method == "tools/list"
	if id == nil && !listTools {
		return nil
	}
	return &sdkAnswer{ResponseWriter: w, id: id, listTools: listTools}
}

// hubID is the id the answer must carry when the SDK would alter it or
// take it for a notification's (none, or null); nil for any other id (a
// string, an integer within 2^53), and for an id the hub cannot write
// either (1e400).
func hubID(id json.RawMessage) []byte {
	if isNull(id) {
		return []byte("null")
	}
	if _, ok := exactID(id); ok || id[0] == '"' {
		return nil
	}
	shown, err := pyjson.Compact(id)
	if err != nil {
		return nil
	}
	return shown
}

func (w *sdkAnswer) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *sdkAnswer) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.buf.Write(b)
}

// finish sends the answer, rewritten.
func (w *sdkAnswer) finish() {
	const frame = `{"jsonrpc":"2.0","id":`
	body := w.buf.Bytes()
	if rest, ok := bytes.CutPrefix(body, []byte(frame+placeholderID)); w.id != nil && ok {
		body = append(append([]byte(frame), w.id...), rest...)
	}
	if w.listTools {
		body = withoutCacheControl(body)
	}
	w.ResponseWriter.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(cmp.Or(w.status, http.StatusOK))
	_, _ = w.ResponseWriter.Write(body)
}

// withoutCacheControl is a JSON-RPC answer whose result object has no
// ttlMs or cacheScope member, every other byte as it was; an answer
// without a result object (an error) is returned as it is.
func withoutCacheControl(body []byte) []byte {
	env, err := objectMembers(body)
	if err != nil {
		return body
	}
	result := env.get("result")
	if !isObject(result) {
		return body
	}
	members, _ := validMembers(result) // a member of a valid body
	kept := make([]byte, 0, len(result))
	kept = append(kept, '{')
	for _, m := range members {
		if m.key == "ttlMs" || m.key == "cacheScope" {
			continue
		}
		if len(kept) > 1 {
			kept = append(kept, ',')
		}
		key, _ := json.Marshal(m.key) // a string always encodes
		kept = append(append(append(kept, key...), ':'), m.value...)
	}
	kept = append(kept, '}')
	at := cap(body) - cap(result) // result is body[at : at+len(result)]
	out := make([]byte, 0, len(body))
	return append(append(append(out, body[:at]...), kept...), body[at+len(result):]...)
}
