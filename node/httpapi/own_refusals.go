package httpapi

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
)

// ownPrefix is the path namespace of lsnode's own routes; the hub has
// none under it.
const ownPrefix = "/lsnode/"

// ownMethods lists, for each own path of the GET and POST tables, the
// methods it takes, as an Allow header writes them ("GET, POST").
func ownMethods(get, post map[string]route) map[string]string {
	methods := map[string][]string{}
	for method, table := range map[string]map[string]route{http.MethodGet: get, http.MethodPost: post} {
		for path, rt := range table {
			if rt.own {
				methods[path] = append(methods[path], method)
			}
		}
	}
	allow := make(map[string]string, len(methods))
	for path, m := range methods {
		slices.Sort(m)
		allow[path] = strings.Join(m, ", ")
	}
	return allow
}

// ownRefusal is the route of a request on lsnode's own ground that no
// route takes: a known own path with a method it does not take gets 405
// with Allow, after the policy of the path's route (so without the token
// an auth route stays a 401); an unknown path under /lsnode/ gets 404.
// Both are JSON, as every refusal of an own route. Other paths are the
// hub's to answer (false).
func (rs routes) ownRefusal(path string) (route, bool) {
	if allow, ok := rs.allow[path]; ok {
		rt, ok := rs.get[path]
		if !ok {
			rt = rs.post[path]
		}
		return route{name: rt.name, auth: rt.auth, scoped: true, own: true, anyQuery: true, h: methodNotAllowed(allow)}, true
	}
	if strings.HasPrefix(path, ownPrefix) {
		return route{name: "/lsnode/other", own: true, anyQuery: true, h: ownNotFound}, true
	}
	return route{}, false
}

// methodNotAllowed answers 405 naming the methods the path takes.
func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeJSON(w, http.StatusMethodNotAllowed, syncwire.ErrorAnswer(
			fmt.Sprintf("method %s not allowed on %s: it takes %s", pyQuote(r.Method), r.URL.Path, allow)))
	}
}

// ownNotFound answers 404 for a path under /lsnode/ that is no route.
func ownNotFound(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusNotFound, syncwire.ErrorAnswer("no route "+r.URL.Path))
}
