package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// Authenticator tells who sent a request from its Authorization header:
// the shared token (--token-file, LSNODE_TOKEN), an agent token of the
// tokens file, or nobody.
type Authenticator struct {
	bearer []byte      // "Bearer <token>"; nil when no shared token is configured
	shared *Credential // the shared token's digest; nil without one
	tokens *Tokens     // nil without a tokens file
}

// NewAuthenticator checks requests against the shared token ("" for
// none) and the tokens file (nil for none). With a tokens file every
// authenticated route needs a token, even when the file lists none.
func NewAuthenticator(shared string, tokens *Tokens) *Authenticator {
	a := &Authenticator{tokens: tokens}
	if shared != "" {
		a.bearer = []byte("Bearer " + shared)
		c := CredentialOf(shared)
		a.shared = &c
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

// Credential is a presented token kept as its SHA-256 digest, which is
// all a console session keeps of the token it signed in with
// (node/httpapi): the session is authenticated again from it at every
// request, so a tokens file reload that drops or changes the token
// applies to the session at once.
type Credential [sha256.Size]byte

// CredentialOf is the credential of a presented token.
func CredentialOf(token string) Credential { return sha256.Sum256([]byte(token)) }

// IdentifyCredential authenticates a credential as a request carrying its
// token as the bearer is authenticated: the shared token first, then the
// tokens file, each compared digest against digest in constant time.
// With no token configured everything passes with full access (a nil
// identity).
func (a *Authenticator) IdentifyCredential(c Credential) (*Identity, bool) {
	if !a.Required() {
		return nil, true
	}
	if a.shared != nil && subtle.ConstantTimeCompare(c[:], a.shared[:]) == 1 {
		return Shared, true
	}
	if a.tokens == nil {
		return nil, false
	}
	if id := a.tokens.Table().lookupDigest(c); id != nil {
		return id, true
	}
	return nil, false
}
