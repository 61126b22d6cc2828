package node

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/lsnode/lsnode/store"
)

// TokenTable is a checked tokens file: the agent tokens and the identity
// each one authenticates as. It is immutable; a reload swaps in a new one.
type TokenTable struct {
	grants []tokenGrant
}

// tokenGrant is one token, kept only as its SHA-256 digest.
type tokenGrant struct {
	digest [sha256.Size]byte
	id     *identity
}

// Len is the number of tokens.
func (t *TokenTable) Len() int { return len(t.grants) }

func (t *TokenTable) add(e tokenEntry) {
	id := &identity{name: e.Name, admin: e.Admin, writeAs: slices.Clone(e.WriteAs)}
	if !e.Admin {
		id.read = readScopeOf(e.Read, e.WriteAs)
	}
	t.grants = append(t.grants, tokenGrant{digest: sha256.Sum256([]byte(e.Token)), id: id})
}

// readScopeOf turns a "read" value into a store scope; nil reads all. An
// absent value is the mailbox.
func readScopeOf(r *readSpec, writeAs []string) *store.ReadScope {
	if r == nil {
		r = &readSpec{Mailbox: true}
	}
	if r.All {
		return nil
	}
	sc := &store.ReadScope{Agents: slices.Clone(r.Agents), Streams: slices.Clone(r.Streams)}
	if r.Mailbox {
		sc.Agents = append(sc.Agents, writeAs...)
	}
	sc.Broadcasts = r.Mailbox || len(r.Agents) > 0
	return sc
}

// lookup returns the identity of a presented token, nil when none
// matches. Every entry is compared, digest against digest in constant
// time, so the time taken says nothing about which entry (or how much of
// one) matched.
func (t *TokenTable) lookup(token string) *identity {
	presented := sha256.Sum256([]byte(token))
	found := -1
	for i := range t.grants {
		eq := subtle.ConstantTimeCompare(presented[:], t.grants[i].digest[:])
		found = subtle.ConstantTimeSelect(eq, i, found)
	}
	if found < 0 {
		return nil
	}
	return t.grants[found].id
}

// holds reports whether token is one of the table's.
func (t *TokenTable) holds(token string) bool {
	return t.lookup(token) != nil
}

// errSharedInTable refuses a tokens file that repeats the shared token,
// which would give one token two meanings.
var errSharedInTable = errors.New("an entry repeats the shared token (--token-file, LSNODE_TOKEN): the shared token already has full access; remove the entry or change one of the two")

// tokenHolder is the current table, swapped atomically on reload.
type tokenHolder struct {
	file string
	cur  atomic.Pointer[TokenTable]
}

// identity is what an authenticated request may do. A nil *identity, as
// the shared token and an unauthenticated loopback node give, may do
// everything.
type identity struct {
	name    string
	admin   bool
	writeAs []string
	read    *store.ReadScope // nil: everything
}

// scoped reports whether the identity is limited (not nil, not admin).
func (id *identity) scoped() bool { return id != nil && !id.admin }

// label names the identity in errors and logs, never by its token.
func (id *identity) label() string {
	if id.name == "" {
		return "an unnamed agent token"
	}
	return "token " + `"` + id.name + `"`
}

// mayWriteAs reports whether the identity may write as agent.
func (id *identity) mayWriteAs(agent string) bool {
	if !id.scoped() {
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

// readScope is the store scope of the identity's reads (nil: all).
func (id *identity) readScope() *store.ReadScope {
	if !id.scoped() {
		return nil
	}
	return id.read
}

// writeAsList is the identity's write_as for error texts.
func (id *identity) writeAsList() string {
	if len(id.writeAs) == 0 {
		return "none (it may only read)"
	}
	return strings.Join(id.writeAs, ", ")
}

type identityKey struct{}

// withIdentity carries the request's identity to the routes and tools.
func withIdentity(ctx context.Context, id *identity) context.Context {
	if id == nil {
		return ctx
	}
	return context.WithValue(ctx, identityKey{}, id)
}

// identityFrom is the identity of the request ctx belongs to; nil (full
// access) outside an authenticated request.
func identityFrom(ctx context.Context) *identity {
	id, _ := ctx.Value(identityKey{}).(*identity)
	return id
}
