package auth

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// Authenticator tells who sent a request from its Authorization header:
// the shared token (--token-file, LSNODE_TOKEN), an agent token of the
// tokens file, or nobody.
type Authenticator struct {
	bearer []byte  // "Bearer <token>"; nil when no shared token is configured
	tokens *Tokens // nil without a tokens file
}

// NewAuthenticator checks requests against the shared token ("" for
// none) and the tokens file (nil for none). With a tokens file every
// authenticated route needs a token, even when the file lists none.
func NewAuthenticator(shared string, tokens *Tokens) *Authenticator {
	a := &Authenticator{tokens: tokens}
	if shared != "" {
		a.bearer = []byte("Bearer " + shared)
	}
	return a
}

// Required reports whether any token is configured.
func (a *Authenticator) Required() bool { return a.bearer != nil || a.tokens != nil }

// Identify authenticates r. The shared token compares the whole
// Authorization header with "Bearer <token>" in constant time; an agent
// token is looked up in the tokens file (TokenTable.lookup). With no
// token configured everything passes with full access (a nil identity).
func (a *Authenticator) Identify(r *http.Request) (*Identity, bool) {
	if !a.Required() {
		return nil, true
	}
	header := r.Header.Get("Authorization")
	if a.bearer != nil && subtle.ConstantTimeCompare([]byte(header), a.bearer) == 1 {
		return Shared, true
	}
	if a.tokens == nil {
		return nil, false
	}
	token, ok := strings.CutPrefix(header, "Bearer ")
	if !ok {
		return nil, false
	}
	if id := a.tokens.Table().lookup(token); id != nil {
		return id, true
	}
	return nil, false
}
