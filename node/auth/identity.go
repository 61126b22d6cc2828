package auth

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/lsnode/lsnode/store"
)

// Identity is what an authenticated request may do. A nil *Identity, as
// an unauthenticated loopback node gives, may do everything; so may the
// shared token's (Shared) and an admin token's.
type Identity struct {
	name    string
	admin   bool
	writeAs []string
	read    *store.ReadScope // nil: everything
}

// Shared is the shared token's identity: full access.
var Shared = &Identity{name: "shared token", admin: true}

// Name is the token's name in the tokens file ("" for an unnamed one).
func (id *Identity) Name() string {
	if id == nil {
		return ""
	}
	return id.name
}

// Scoped reports whether the identity is limited (not nil, not admin).
func (id *Identity) Scoped() bool { return id != nil && !id.admin }

// Label names the identity in errors and logs, never by its token.
func (id *Identity) Label() string {
	if id.name == "" {
		return "an unnamed agent token"
	}
	return "token " + `"` + id.name + `"`
}

// MayWriteAs reports whether the identity may write as agent.
func (id *Identity) MayWriteAs(agent string) bool {
	if !id.Scoped() {
		return true
	}
	for _, p := range id.writeAs {
		if p == agent {
			return true
		}
		if ok, err := path.Match(p, agent); err == nil && ok {
			return true
		}
	}
	return false
}

// ReadScope is the store scope of the identity's reads (nil: all).
func (id *Identity) ReadScope() *store.ReadScope {
	if !id.Scoped() {
		return nil
	}
	return id.read
}

// WriteAs is a copy of the identity's write_as names and patterns
// (empty for the shared token and a nil identity, which may write as
// anyone, and for a token that only reads).
func (id *Identity) WriteAs() []string {
	if id == nil {
		return nil
	}
	return slices.Clone(id.writeAs)
}

// WriteAsList is the identity's write_as for error texts.
func (id *Identity) WriteAsList() string {
	if len(id.writeAs) == 0 {
		return "none (it may only read)"
	}
	return strings.Join(id.writeAs, ", ")
}

type identityKey struct{}

// WithIdentity carries the request's identity to the routes and tools.
func WithIdentity(ctx context.Context, id *Identity) context.Context {
	if id == nil {
		return ctx
	}
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom is the identity of the request ctx belongs to; nil (full
// access) outside an authenticated request.
func IdentityFrom(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}
