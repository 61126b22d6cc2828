package httpapi

import (
	"net/http"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// defaultAgentsWindow is how close in time two writes of one agent name
// through different replicas must be for /lsnode/agents to flag it.
const defaultAgentsWindow = 10 * time.Minute

// handleAgents answers GET /lsnode/agents?window=DURATION: the agent
// roster derived from the log (shared names flagged: RFC 003 §7.7,
// docs/architecture.md#rfcs), with
// each agent's claim conflicts: the asks it owes and claimed through two
// or more replicas.
func (s *Server) handleAgents(w http.ResponseWriter, r *http.Request) {
	window := defaultAgentsWindow
	if v := r.URL.Query().Get("window"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			writeError(w, r, s.log, invalid("window must be a non-negative duration such as 10m"))
			return
		}
		window = d
	}
	agents, err := s.store.Agents(r.Context(), window)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	rows := make([]any, len(agents))
	for i, a := range agents {
		var seen any
		if !a.LastSeen.IsZero() {
			seen = a.LastSeen.UTC().Format(time.RFC3339Nano)
		}
		rows[i] = pyjson.Object{
			{Key: "agent", Value: a.Agent}, {Key: "replicas", Value: a.Replicas}, {Key: "events", Value: a.Events},
			{Key: "last_hlc", Value: a.LastHLC}, {Key: "last_seen", Value: seen},
			{Key: "last_created_at", Value: a.LastCreatedAt}, {Key: "shared", Value: a.Shared},
			{Key: "claim_conflicts", Value: a.ClaimConflicts},
		}
	}
	writeJSON(w, http.StatusOK, pyjson.Object{{Key: "agents", Value: rows}, {Key: "window_s", Value: window.Seconds()}})
}
