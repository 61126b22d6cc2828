package fakehub

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyhttp"
	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
)

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
	q := pyhttp.ParseQSL(r.URL.RawQuery)
	switch r.URL.Path {
	case syncwire.VersionVectorPath:
		h.serveVector(w)
	case syncwire.OpsPath:
		h.serveOps(w, q)
	case syncwire.ArtifactPath:
		h.serveArtifact(w, q)
	case syncwire.PeersPath:
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
	return syncwire.Profile{Roles: []string{"agents"}, Hardware: "fakehub", AdvertisedAt: h.wall.Now()}.JSON()
}

func (h *Hub) serveVector(w http.ResponseWriter) {
	self := h.profile()
	writeJSON(w, http.StatusOK, syncwire.VersionVector[any]{
		ReplicaID: h.cfg.ReplicaID, Vector: h.VersionVector(), Profile: self, Profiles: map[string]any{h.cfg.ReplicaID: self},
	}.JSON())
}

// serveOps is the hub's /sync/ops: int() of after and limit first, then
// list_ops' checks (origin, after_seq, limit), each a 400 with its text.
func (h *Hub) serveOps(w http.ResponseWriter, q map[string]string) {
	req, err := syncwire.ParseOpsRequest(q)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, syncwire.ErrorAnswer(err.Error()))
		return
	}
	h.mu.Lock()
	rows := h.listOpsLocked(req.Origin, req.After, req.Limit)
	events := make([]any, len(rows))
	for i, r := range rows {
		events[i] = h.eventDictLocked(r)
	}
	h.mu.Unlock()
	writeJSON(w, http.StatusOK, syncwire.Ops[any]{Origin: req.Sent, Events: events}.JSON())
}

// serveArtifact is the hub's /sync/artifact: the trimmed id looked up,
// the id as sent named in the 404.
func (h *Hub) serveArtifact(w http.ResponseWriter, q map[string]string) {
	req, err := syncwire.ParseArtifactRequest(q)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, syncwire.ErrorAnswer(err.Error()))
		return
	}
	h.mu.Lock()
	a := h.artifacts[req.ID]
	var rec pyjson.Object
	if a != nil {
		rec = artifactDict(a)
	}
	h.mu.Unlock()
	if a == nil {
		writeJSON(w, http.StatusNotFound, syncwire.ArtifactNotFound(req.Sent))
		return
	}
	writeJSON(w, http.StatusOK, syncwire.ArtifactAnswer(rec))
}

func (h *Hub) servePeers(w http.ResponseWriter) {
	self := h.profile()
	writeJSON(w, http.StatusOK, syncwire.Estate{
		ReplicaID: h.cfg.ReplicaID, Name: h.cfg.Name, Vector: h.VersionVector(), Profile: self,
		OriginProfiles: map[string]any{h.cfg.ReplicaID: self}, SyncInterval: 15 * time.Second, InProcess: true,
	}.JSON())
}

// eventDictLocked renders a row as the hub's read paths do (docs/compatibility.md#event-and-artifact-records):
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

// artifactDict is the hub's artifact "get" record (docs/compatibility.md#event-and-artifact-records).
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

// errorPage is Python's BaseHTTPRequestHandler.send_error page.
func errorPage(w http.ResponseWriter, status int, message string) {
	writeBody(w, status, pyhttp.PageContentType, pyhttp.ErrorPage(status, message))
}
