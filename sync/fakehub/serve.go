package fakehub

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// defaultOpsLimit is /sync/ops' default limit (list_ops then clamps to 500).
const defaultOpsLimit = 500

// Handler serves the hub's HTTP surface for replication: GET
// /sync/version_vector, /sync/ops, /sync/artifact, /sync/peers and
// /healthz, with the bearer check on /sync/*. Every answer carries
// Connection: close, as the hub's do.
func (h *Hub) Handler() http.Handler {
	return http.HandlerFunc(h.serve)
}

func (h *Hub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.requests = append(h.requests, r.URL.Path+"?"+r.URL.RawQuery)
	h.mu.Unlock()
	w.Header().Set("Connection", "close")
	switch r.Method {
	case http.MethodGet:
	case http.MethodPost:
		if !h.authorized(r) {
			errorPage(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	default:
		errorPage(w, http.StatusNotImplemented, fmt.Sprintf("Unsupported method ('%s')", r.Method))
		return
	}
	if r.URL.Path == "/healthz" {
		writeBody(w, http.StatusOK, "text/plain; charset=utf-8", []byte("ok\n"))
		return
	}
	if !strings.HasPrefix(r.URL.Path, "/sync/") {
		errorPage(w, http.StatusNotFound, "Not Found")
		return
	}
	if !h.authorized(r) {
		errorPage(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	q := parseQSL(r.URL.RawQuery)
	switch r.URL.Path {
	case "/sync/version_vector":
		h.serveVector(w)
	case "/sync/ops":
		h.serveOps(w, q)
	case "/sync/artifact":
		h.serveArtifact(w, q)
	case "/sync/peers":
		h.servePeers(w)
	default:
		errorPage(w, http.StatusNotFound, "Not Found")
	}
}

// authorized compares the whole Authorization header with "Bearer
// <token>" in constant time; with no token configured, all pass.
func (h *Hub) authorized(r *http.Request) bool {
	if h.cfg.Token == "" {
		return true
	}
	want := []byte("Bearer " + h.cfg.Token)
	got := []byte(r.Header.Get("Authorization"))
	return subtle.ConstantTimeCompare(want, got) == 1
}

// profile is the hub's node profile (fixed for the fake).
func (h *Hub) profile() pyjson.Object {
	return pyjson.Object{
		{Key: "roles", Value: []any{"agents"}},
		{Key: "accelerator", Value: nil},
		{Key: "drawers", Value: nil},
		{Key: "hardware", Value: "fakehub"},
		{Key: "advertised_at", Value: pytime.UTC(h.wall.Now())},
	}
}

func (h *Hub) serveVector(w http.ResponseWriter) {
	vv := h.VersionVector()
	self := h.profile()
	writeJSON(w, http.StatusOK, pyjson.Object{
		{Key: "replica_id", Value: h.cfg.ReplicaID},
		{Key: "version_vector", Value: vv},
		{Key: "profile", Value: self},
		{Key: "profiles", Value: map[string]any{h.cfg.ReplicaID: self}},
	})
}

// serveOps is the hub's /sync/ops: int() of after and limit first, then
// list_ops' checks (origin, after_seq, limit), each a 400 with its text.
func (h *Hub) serveOps(w http.ResponseWriter, q map[string]string) {
	after, err := intParam(q, "after", 0)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
		return
	}
	limit, err := intParam(q, "limit", defaultOpsLimit)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
		return
	}
	var originArg any
	if o, ok := q["origin"]; ok {
		originArg = o
	}
	origin, err := rules.Routing(originArg, "origin", true)
	if err == nil {
		_, err = rules.AfterSeq(after)
	}
	n := 0
	if err == nil {
		n, err = rules.Limit(limit)
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
		return
	}
	h.mu.Lock()
	rows := h.listOpsLocked(origin, after, n)
	events := make([]any, len(rows))
	for i, r := range rows {
		events[i] = h.eventDictLocked(r)
	}
	h.mu.Unlock()
	writeJSON(w, http.StatusOK, pyjson.Object{
		{Key: "origin", Value: originArg},
		{Key: "events", Value: events},
		{Key: "count", Value: len(events)},
	})
}

func (h *Hub) serveArtifact(w http.ResponseWriter, q map[string]string) {
	var idArg any
	if id, ok := q["id"]; ok {
		idArg = id
	}
	id, err := rules.Routing(idArg, "artifact_id", true)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(err.Error()))
		return
	}
	h.mu.Lock()
	a := h.artifacts[id]
	var rec pyjson.Object
	if a != nil {
		rec = artifactDict(a)
	}
	h.mu.Unlock()
	if a == nil {
		writeJSON(w, http.StatusNotFound, errorBody("artifact "+rules.Repr(id)+" not found"))
		return
	}
	writeJSON(w, http.StatusOK, pyjson.Object{{Key: "artifact", Value: rec}})
}

func (h *Hub) servePeers(w http.ResponseWriter) {
	vv := h.VersionVector()
	self := h.profile()
	unnamed := []string{}
	for o := range vv {
		if o != h.cfg.ReplicaID {
			unnamed = append(unnamed, o)
		}
	}
	slices.Sort(unnamed)
	writeJSON(w, http.StatusOK, pyjson.Object{
		{Key: "self", Value: pyjson.Object{
			{Key: "replica_id", Value: h.cfg.ReplicaID}, {Key: "name", Value: h.cfg.Name},
			{Key: "version_vector", Value: vv}, {Key: "profile", Value: self},
		}},
		{Key: "peers", Value: []any{}},
		{Key: "unnamed_origins", Value: unnamed},
		{Key: "origin_profiles", Value: map[string]any{h.cfg.ReplicaID: self}},
		{Key: "sync_interval_s", Value: 15.0},
		{Key: "estate_source", Value: pyjson.Object{
			{Key: "in_process", Value: true}, {Key: "published_at", Value: nil}, {Key: "writer_alive", Value: true},
		}},
	})
}

// eventDictLocked renders a row as the hub's read paths do (wire §1.7):
// seq is the rowid, artifact_ids sorted, metadata parsed ({} when
// unparsable).
func (h *Hub) eventDictLocked(r *row) pyjson.Object {
	links := slices.Clone(r.links)
	slices.Sort(links)
	if links == nil {
		links = []string{}
	}
	var seq any
	if r.originSeq != nil {
		seq = *r.originSeq
	}
	return pyjson.Object{
		{Key: "id", Value: r.id}, {Key: "seq", Value: r.rowid},
		{Key: "origin_replica", Value: deref(r.origin)}, {Key: "origin_seq", Value: seq}, {Key: "hlc", Value: deref(r.hlc)},
		{Key: "type", Value: r.typ}, {Key: "stream", Value: r.stream}, {Key: "room", Value: r.room},
		{Key: "topic", Value: deref(r.topic)}, {Key: "from_agent", Value: r.fromAgent},
		{Key: "to_agent", Value: deref(r.toAgent)}, {Key: "correlation_id", Value: deref(r.correlationID)},
		{Key: "branch", Value: deref(r.branch)}, {Key: "base_commit", Value: deref(r.baseCommit)},
		{Key: "status", Value: deref(r.status)}, {Key: "artifact_ids", Value: links},
		{Key: "body", Value: r.body}, {Key: "created_at", Value: r.createdAt},
		{Key: "metadata", Value: metadataValue(r.meta)},
	}
}

// artifactDict is the hub's artifact "get" record (wire §1.8).
func artifactDict(a *artifact) pyjson.Object {
	return pyjson.Object{
		{Key: "id", Value: a.id}, {Key: "kind", Value: a.kind}, {Key: "sha256", Value: a.sha},
		{Key: "size_bytes", Value: a.size}, {Key: "content", Value: a.content},
		{Key: "created_by", Value: a.createdBy}, {Key: "created_at", Value: a.createdAt},
		{Key: "origin_replica", Value: deref(a.origin)}, {Key: "metadata", Value: metadataValue(a.meta)},
	}
}

func metadataValue(text string) any {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) != nil || obj == nil {
		return pyjson.Object{}
	}
	return json.RawMessage(text)
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func errorBody(msg string) pyjson.Object { return pyjson.Object{{Key: "error", Value: msg}} }

// writeJSON writes json.dumps(v) with the hub's headers.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := pyjson.Compact(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error": "fakehub: unencodable answer"}`)
	}
	writeBody(w, status, "application/json; charset=utf-8", body)
}

func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// errorExplain are http.server's explanations for the pages the hub sends.
var errorExplain = map[int]string{
	http.StatusUnauthorized:   "No permission -- see authorization schemes",
	http.StatusNotFound:       "Nothing matches the given URI",
	http.StatusNotImplemented: "Server does not support this operation",
}

// pageEscaper is html.escape(message, quote=False).
var pageEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// errorPage is Python's BaseHTTPRequestHandler.send_error page.
func errorPage(w http.ResponseWriter, status int, message string) {
	body := "<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <meta charset=\"utf-8\">\n" +
		"        <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n" +
		fmt.Sprintf("        <p>Error code: %d</p>\n", status) +
		fmt.Sprintf("        <p>Message: %s.</p>\n", pageEscaper.Replace(message)) +
		fmt.Sprintf("        <p>Error code explanation: %d - %s.</p>\n", status, errorExplain[status]) +
		"    </body>\n</html>\n"
	writeBody(w, status, "text/html;charset=utf-8", []byte(body))
}
