package node

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// policy is the Python hub's request policy (mempalace-wire.md §5), checked
// in its order: Host pin (loopback binds only), then Origin, then bearer.
type policy struct {
	pinHost      bool
	allowedHosts map[string]struct{}
	bearer       []byte // "Bearer <token>"; nil when no token is configured
	// tokens holds the agent tokens of --tokens-file; nil when none is
	// configured. With a tokens file every authenticated route needs a
	// token, even when the file lists none.
	tokens *tokenHolder
}

// newPolicy builds the policy of a bind on host:port. port is the bound
// port, so an ephemeral bind (port 0) pins the port actually used.
func newPolicy(cfg Config, bindHost string, port int, tokens *tokenHolder) *policy {
	p := &policy{pinHost: isLoopbackHost(bindHost), allowedHosts: map[string]struct{}{}, tokens: tokens}
	if cfg.Token != "" {
		p.bearer = []byte("Bearer " + cfg.Token)
	}
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
	for _, raw := range cfg.ExtraAllowedHosts {
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
func (p *policy) check(r *http.Request, requireAuth bool) (int, *identity) {
	if p.pinHost {
		if _, ok := p.allowedHosts[strings.ToLower(strings.TrimSpace(r.Host))]; !ok {
			return http.StatusForbidden, nil
		}
	}
	if o := r.Header.Get("Origin"); o != "" && !originAllowed(o) {
		return http.StatusForbidden, nil
	}
	id, ok := p.identify(r)
	if requireAuth && !ok {
		return http.StatusUnauthorized, nil
	}
	return 0, id
}

// sharedIdentity is the shared token's: full access.
var sharedIdentity = &identity{name: "shared token", admin: true}

// authRequired reports whether any token is configured.
func (p *policy) authRequired() bool { return p.bearer != nil || p.tokens != nil }

// identify authenticates r. The shared token compares the whole
// Authorization header with "Bearer <token>" in constant time; an agent
// token is looked up in the tokens file (TokenTable.lookup). With no
// token configured everything passes with full access.
func (p *policy) identify(r *http.Request) (*identity, bool) {
	if !p.authRequired() {
		return nil, true
	}
	header := r.Header.Get("Authorization")
	if p.bearer != nil && subtle.ConstantTimeCompare([]byte(header), p.bearer) == 1 {
		return sharedIdentity, true
	}
	if p.tokens == nil {
		return nil, false
	}
	token, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return nil, false
	}
	if id := p.tokens.cur.Load().lookup(token); id != nil {
		return id, true
	}
	return nil, false
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
