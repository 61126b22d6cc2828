package httpapi

import "net/http"

// handleHealthz serves GET /healthz: 200 "ok\n", no token needed (Host
// and Origin are still checked), for liveness probes.
func (s *Server) handleHealthz(w http.ResponseWriter, _ *http.Request) {
	writeBody(w, http.StatusOK, contentText, []byte("ok\n"))
}
