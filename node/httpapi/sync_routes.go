package httpapi

import (
	"errors"
	"net/http"

	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/store"
)

// syncOpsMaxBytes bounds one /sync/ops page: a page of 500 events at the
// size limits would run to 160 MiB. A short page is safe for Python
// pullers, which ask again after the last origin_seq they got.
const syncOpsMaxBytes = 8 << 20

// handleVersionVector serves GET /sync/version_vector.
func (s *Server) handleVersionVector(w http.ResponseWriter, r *http.Request) {
	vv := s.store.VersionVector()
	self := s.selfProfile(vv)
	writeJSON(w, http.StatusOK, syncwire.VersionVector[any]{
		ReplicaID: s.store.ReplicaID(),
		Vector:    vv,
		Profile:   self,
		Profiles:  s.profiles(s.roster(r.Context()), self),
	}.JSON())
}

// handleOps serves GET /sync/ops?origin=&after=&limit=: the ops of one
// origin after an origin_seq, in origin order, as event dicts.
func (s *Server) handleOps(w http.ResponseWriter, r *http.Request) {
	req, err := opsRequest(parseQuery(r.URL.RawQuery))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	ops, err := s.store.OpsAfter(r.Context(), req.Origin, req.After, req.Limit, syncOpsMaxBytes)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	events := make([]any, len(ops))
	for i := range ops {
		events[i] = ops[i].Event
	}
	writeJSON(w, http.StatusOK, syncwire.Ops[any]{Origin: req.Sent, Events: events}.JSON())
}

// opsRequest reads a /sync/ops request; the error is the 400 refusal.
func opsRequest(q query) (syncwire.OpsRequest, error) {
	req, err := syncwire.ParseOpsRequest(q)
	if err != nil {
		return syncwire.OpsRequest{}, invalid(err.Error())
	}
	return req, nil
}

// handleArtifact serves GET /sync/artifact?id=: {"artifact": <get record>},
// 404 for an id this node does not hold, named as the query sent it (the
// hub looks the trimmed id up but quotes the raw one).
func (s *Server) handleArtifact(w http.ResponseWriter, r *http.Request) {
	req, err := syncwire.ParseArtifactRequest(parseQuery(r.URL.RawQuery))
	if err != nil {
		writeError(w, r, s.log, invalid(err.Error()))
		return
	}
	a, err := s.store.GetArtifact(r.Context(), req.ID)
	if errors.Is(err, store.ErrNotFound) {
		writeJSON(w, http.StatusNotFound, syncwire.ArtifactNotFound(req.Sent))
		return
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, syncwire.ArtifactAnswer(a))
}

// handlePeers serves GET /sync/peers: the estate (PeersPayload).
func (s *Server) handlePeers(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.PeersPayload(r.Context()))
}
