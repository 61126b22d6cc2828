package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
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
	id     *Identity
}

// Len is the number of tokens.
func (t *TokenTable) Len() int { return len(t.grants) }

func (t *TokenTable) add(e tokenEntry) {
	id := &Identity{name: e.Name, admin: e.Admin, writeAs: slices.Clone(e.WriteAs)}
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
func (t *TokenTable) lookup(token string) *Identity {
	return t.lookupDigest(CredentialOf(token))
}

// lookupDigest is lookup of a token given by its digest.
func (t *TokenTable) lookupDigest(presented Credential) *Identity {
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

// Tokens is the table of a tokens file in use, swapped atomically when
// the file is read again: requests already authenticated keep the
// identity they had, later ones use the new table.
type Tokens struct {
	file   string
	shared string // the shared token, which no entry may repeat
	cur    atomic.Pointer[TokenTable]
}

// OpenTokens reads and checks the tokens file, refusing one that repeats
// the shared token ("" for none).
func OpenTokens(file, shared string) (*Tokens, error) {
	t := &Tokens{file: file, shared: shared}
	table, err := t.read()
	if err != nil {
		return nil, err
	}
	t.cur.Store(table)
	return t, nil
}

// File is the path of the tokens file.
func (t *Tokens) File() string { return t.file }

// Table is the table in use.
func (t *Tokens) Table() *TokenTable { return t.cur.Load() }

// Reload reads the file again and swaps the new table in; a file that is
// invalid keeps the table in use and returns the error.
func (t *Tokens) Reload() (*TokenTable, error) {
	table, err := t.read()
	if err != nil {
		return nil, err
	}
	t.cur.Store(table)
	return table, nil
}

func (t *Tokens) read() (*TokenTable, error) {
	table, err := LoadTokens(t.file)
	if err != nil {
		return nil, err
	}
	if t.shared != "" && table.holds(t.shared) {
		return nil, fmt.Errorf("tokens file %s: %w", t.file, errSharedInTable)
	}
	return table, nil
}
