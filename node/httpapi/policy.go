package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/lsnode/lsnode/node/auth"
)

// policy is the Python hub's request policy (docs/compatibility.md#request-policy), checked
// in its order: Host pin (loopback binds only), then Origin, then bearer
// (auth.Authenticator).
type policy struct {
	pinHost      bool
	allowedHosts map[string]struct{}
	auth         *auth.Authenticator
}

// newPolicy builds the policy of a bind on host:port. port is the bound
// port, so an ephemeral bind (port 0) pins the port actually used. A nil
// authenticator requires no token.
func newPolicy(bindHost string, port int, extraHosts []string, a *auth.Authenticator) *policy {
	if a == nil {
		a = auth.NewAuthenticator("", nil)
	}
	p := &policy{pinHost: auth.IsLoopbackHost(bindHost), allowedHosts: map[string]struct{}{}, auth: a}
	ps := strconv.Itoa(port)
	names := []string{"127.0.0.1", "localhost", "::1", "[::1]"}
	if h := strings.ToLower(strings.TrimSpace(bindHost)); h != "" {
		names = append(names, h)
		if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
			names = append(names, "["+h+"]") // an IPv6 literal as it appears in Host
		}
	}
	for _, n := range names {
		p.allowedHosts[n] = struct{}{}
		p.allowedHosts[n+":"+ps] = struct{}{}
	}
	for _, raw := range extraHosts {
		e := strings.ToLower(strings.TrimSpace(raw))
		if e == "" {
			continue
		}
		p.allowedHosts[e] = struct{}{}
		if !strings.Contains(e, ":") {
			p.allowedHosts[e+":"+ps] = struct{}{}
		}
	}
	return p
}

// check returns 0 and the caller's identity when r may proceed, else the
// status to refuse it with (403 for Host or Origin, 401 for the bearer).
func (p *policy) check(r *http.Request, requireAuth bool) (int, *auth.Identity) {
	if p.pinHost {
		if _, ok := p.allowedHosts[strings.ToLower(strings.TrimSpace(r.Host))]; !ok {
			return http.StatusForbidden, nil
		}
	}
	if o := r.Header.Get("Origin"); o != "" && !originAllowed(o) {
		return http.StatusForbidden, nil
	}
	id, ok := p.auth.Identify(r)
	if requireAuth && !ok {
		return http.StatusUnauthorized, nil
	}
	return 0, id
}

// authenticated reports whether r carries a valid token where one is
// required (the "authenticated" of /statusz's clients).
func (p *policy) authenticated(r *http.Request) bool {
	_, ok := p.auth.Identify(r)
	return p.auth.Required() && ok
}

// originAllowed reports whether a browser Origin names this machine.
// "null" and unparsable origins fail.
func originAllowed(origin string) bool {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}
