package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// Paging of GET /sync/ops.
const (
	syncOpsDefaultLimit = 500
	// syncOpsMaxBytes bounds one page: a page of 500 events at the size
	// limits would run to 160 MiB. A short page is safe for Python
	// pullers, which ask again after the last origin_seq they got.
	syncOpsMaxBytes = 8 << 20
)

// handleVersionVector serves GET /sync/version_vector:
// {"replica_id", "version_vector", "profile", "profiles"}.
func (s *Server) handleVersionVector(w http.ResponseWriter, r *http.Request) {
	vv := s.store.VersionVector()
	self := s.selfProfile(vv)
	writeJSON(w, http.StatusOK, pyjson.Object{
		{Key: "replica_id", Value: s.store.ReplicaID()},
		{Key: "version_vector", Value: vv},
		{Key: "profile", Value: self},
		{Key: "profiles", Value: s.profiles(s.roster(r.Context()), self)},
	})
}

// handleOps serves GET /sync/ops?origin=&after=&limit=: the ops of one
// origin after an origin_seq, in origin order, as event dicts.
func (s *Server) handleOps(w http.ResponseWriter, r *http.Request) {
	origin, after, n, err := opsRequest(parseQuery(r.URL.RawQuery))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	ops, err := s.store.OpsAfter(r.Context(), origin, after, n, syncOpsMaxBytes)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	events := make([]any, len(ops))
	for i := range ops {
		events[i] = ops[i].Event
	}
	writeJSON(w, http.StatusOK, pyjson.Object{
		{Key: "origin", Value: origin},
		{Key: "events", Value: events},
		{Key: "count", Value: len(events)},
	})
}

// opsRequest reads origin, after and limit (clamped) of a /sync/ops
// request; the error is the 400 refusal.
func opsRequest(q query) (origin string, after int64, limit int, err error) {
	origin = q["origin"]
	if after, err = q.intParam("after", 0); err != nil {
		return "", 0, 0, err
	}
	n, err := q.intParam("limit", syncOpsDefaultLimit)
	if err != nil {
		return "", 0, 0, err
	}
	if limit, err = checkOpsParams(origin, after, n); err != nil {
		return "", 0, 0, err
	}
	return origin, after, limit, nil
}

// checkOpsParams applies the Python hub's list_ops checks in its order
// (origin, after, limit) and returns the clamped limit.
func checkOpsParams(origin string, after, limit int64) (int, error) {
	if _, err := rules.Routing(origin, "origin", true); err != nil {
		return 0, invalid(err.Error())
	}
	if _, err := rules.AfterSeq(after); err != nil {
		return 0, invalid(err.Error())
	}
	n, err := rules.Limit(limit)
	if err != nil {
		return 0, invalid(err.Error())
	}
	return n, nil
}

// handleArtifact serves GET /sync/artifact?id=: {"artifact": <get record>},
// 404 for an id this node does not hold, named as the query sent it (the
// hub looks the trimmed id up but quotes the raw one).
func (s *Server) handleArtifact(w http.ResponseWriter, r *http.Request) {
	id := parseQuery(r.URL.RawQuery)["id"]
	a, err := s.store.GetArtifact(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		writeJSON(w, http.StatusNotFound, errorJSON(fmt.Sprintf("artifact %s not found", rules.Repr(id))))
		return
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, pyjson.Object{{Key: "artifact", Value: a}})
}

// handlePeers serves GET /sync/peers: the estate (mempalace-wire.md §3.9).
func (s *Server) handlePeers(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.PeersPayload(r.Context()))
}
