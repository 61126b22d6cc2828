package httpapi

import (
	"net/http"
	"net/http/pprof"
	"strings"
)

// pprofPrefix is where the Go runtime profiles are served: the paths
// `go tool pprof http://host/debug/pprof/profile` expects. They are admin
// routes, gated like /metrics: a goroutine dump shows request arguments
// and a CPU profile costs CPU while it runs, so agent tokens get 403 and
// no token gets 401 (when a token is configured).
const pprofPrefix = "/debug/pprof/"

// pprofRoute is the route of every GET under pprofPrefix. It counts as a
// stream (no duration histogram): a CPU profile or trace lasts as long as
// its seconds parameter, and net/http/pprof extends the write deadline
// by that much itself.
var pprofRoute = route{name: pprofPrefix, auth: true, stream: true, h: servePprof}

// servePprof dispatches to net/http/pprof by the path's last element;
// Index serves the named runtime profiles (heap, goroutine, mutex, ...).
func servePprof(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimPrefix(r.URL.Path, pprofPrefix) {
	case "cmdline":
		pprof.Cmdline(w, r)
	case "profile":
		pprof.Profile(w, r)
	case "symbol":
		pprof.Symbol(w, r)
	case "trace":
		pprof.Trace(w, r)
	default:
		pprof.Index(w, r)
	}
}
