package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"net/http"
	"path/filepath"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
	"github.com/lsnode/lsnode/node/auth"
)

// handleStatusz serves GET /statusz: the Python hub's keys (ok, server,
// palace, writer, requests, clients) where they make sense for lsnode,
// then lsnode's own: replica id, log counts, version vector, catch-up,
// integrity, wait-for cycles and streams.
func (s *Server) handleStatusz(w http.ResponseWriter, r *http.Request) {
	st, err := s.store.Stats(r.Context())
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	sizes, err := s.sizesMembers(r.Context()) // statusz_sizes.go
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	cycles, err := s.cyclesPart(r.Context(), auth.IdentityFrom(r.Context()).ReadScope()) // statusz_cycles.go
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	catchUp := []any{}
	if s.cfg.Replication != nil {
		catchUp = catchUpPayload(s.cfg.Replication.CatchUp())
	}
	now := s.wall.Now()
	uptime := math.Round(now.Sub(s.started).Seconds()*1000) / 1000
	writeJSON(w, http.StatusOK, pyjson.Object{
		{Key: "ok", Value: true},
		{Key: "server", Value: pyjson.Object{
			{Key: "name", Value: "lsnode"},
			{Key: "version", Value: s.cfg.Version},
			{Key: "transport", Value: "http"},
			{Key: "scheme", Value: s.cfg.Scheme},
			{Key: "bind_host", Value: s.cfg.BindHost},
			{Key: "port", Value: s.cfg.Port},
			{Key: "started_at", Value: pytime.LocalISO(s.started)},
			{Key: "uptime_seconds", Value: uptime},
		}},
		{Key: "palace", Value: pyjson.Object{
			{Key: "path_hash", Value: pathHash(s.cfg.DataDir)},
			{Key: "backend", Value: "lsnode"},
			// lsnode keeps no Chroma palace: a neutral, unchecked verdict.
			{Key: "sqlite_integrity", Value: pyjson.Object{{Key: "checked", Value: false}, {Key: "ok", Value: nil}}},
		}},
		{Key: "writer", Value: pyjson.Object{
			{Key: "read_only", Value: s.cfg.ReadOnly},
			{Key: "peer_writer_read_only", Value: false},
			{Key: "peer_writer_lock_failed", Value: false},
		}},
		{Key: "requests", Value: s.stats.requestsPayload()},
		{Key: "clients", Value: s.stats.clientsPayload(now)},
		{Key: "replica_id", Value: s.store.ReplicaID()},
		{Key: "log", Value: append(pyjson.Object{
			{Key: "events", Value: st.Events},
			{Key: "artifacts", Value: st.Artifacts},
			{Key: "quarantined", Value: st.Quarantined},
			{Key: "origins", Value: st.Origins},
			{Key: "disk_bytes", Value: st.DiskBytes},
		}, sizes...)},
		{Key: "recovering_own_origin", Value: s.recovering()},
		{Key: "version_vector", Value: s.store.VersionVector()},
		{Key: "catch_up", Value: catchUp},
		{Key: "integrity", Value: s.integrityPayload()},
		{Key: "wait_for_cycles", Value: cycles},
		{Key: "sse", Value: pyjson.Object{
			{Key: "clients", Value: s.sse.active()},
			{Key: "max_clients", Value: s.cfg.SSEMaxClients},
		}},
	})
}

// pathHash is the first 16 hex digits of sha256 over the absolute data
// dir (the Python hub's palace path_hash).
func pathHash(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	sum := sha256.Sum256([]byte(abs))
	return hex.EncodeToString(sum[:])[:8*2]
}
