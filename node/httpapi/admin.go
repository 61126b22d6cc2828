package httpapi

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/node/auth"
)

// refuseScoped answers an agent token on a route that needs an admin
// token (replication, metrics, status, the agent roster) with 403 and a
// JSON error naming the token by its label.
func refuseScoped(w http.ResponseWriter, r *http.Request, log *slog.Logger, id *auth.Identity) {
	log.Warn("request refused: admin route", "status", http.StatusForbidden, "path", r.URL.Path, "token_name", id.Name())
	writeJSON(w, http.StatusForbidden, syncwire.ErrorAnswer(fmt.Sprintf(
		"%s needs an admin token (the shared token or \"admin\": true in the tokens file); %s is an agent token",
		r.URL.Path, id.Label())))
}
