package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node/auth"
)

// Console sessions live in memory only: a random id in an HttpOnly,
// SameSite=Strict cookie (Secure over TLS) names a session, which holds
// the digest of the token it signed in with (never the token), a CSRF
// token and when its user last made a request. The identity is looked
// up again from the digest at every request, so a tokens file reload
// that drops a token ends its sessions, and a restart ends them all.

const (
	// consoleCookie starts the session cookie's name, which ends with
	// the node's port: browsers keep one cookie jar per host, whatever
	// the port, and the nodes of a local mesh share 127.0.0.1. Its path
	// is /ui/.
	consoleCookie = "lsnode_console_"
	// csrfHeader carries the session's CSRF token on every POST but
	// sign-in.
	csrfHeader = "X-CSRF-Token"
	// maxConsoleSessions bounds the table: one more signs the least
	// recently active session out.
	maxConsoleSessions = 1024
	// secretBytes is the entropy of a session id and of a CSRF token.
	secretBytes = 32
)

// consoleSession is one signed-in browser.
type consoleSession struct {
	id   string
	csrf string
	cred auth.Credential
	// lastSeen and streams are guarded by the table's mutex.
	lastSeen time.Time
	streams  map[int]context.CancelFunc // open tails, ended at sign-out
}

// csrfMatches compares a presented CSRF token with the session's in
// constant time; an empty one never matches.
func (s *consoleSession) csrfMatches(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

// sessionTable holds the sessions by id.
type sessionTable struct {
	cookie string // the cookie's name
	wall   hlc.WallClock
	idle   time.Duration
	rand   io.Reader

	mu         sync.Mutex
	byID       map[string]*consoleSession
	nextStream int
}

func newSessionTable(port int, wall hlc.WallClock, idle time.Duration, random io.Reader) *sessionTable {
	if random == nil {
		random = rand.Reader
	}
	return &sessionTable{cookie: consoleCookie + strconv.Itoa(port), wall: wall, idle: idle, rand: random,
		byID: map[string]*consoleSession{}}
}

// secret is secretBytes of the table's randomness, base64url.
func (t *sessionTable) secret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := io.ReadFull(t.rand, b); err != nil {
		return "", fmt.Errorf("console session: read randomness: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// create signs a credential in: a new session, its CSRF token minted.
func (t *sessionTable) create(cred auth.Credential) (*consoleSession, error) {
	id, err := t.secret()
	if err != nil {
		return nil, err
	}
	csrf, err := t.secret()
	if err != nil {
		return nil, err
	}
	now := t.wall.Now()
	s := &consoleSession{id: id, csrf: csrf, cred: cred, lastSeen: now, streams: map[int]context.CancelFunc{}}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweepLocked(now)
	if len(t.byID) >= maxConsoleSessions {
		var oldest *consoleSession
		for _, o := range t.byID {
			if oldest == nil || o.lastSeen.Before(oldest.lastSeen) {
				oldest = o
			}
		}
		t.endLocked(oldest)
	}
	t.byID[id] = s
	return s, nil
}

// sweepLocked ends every expired session.
func (t *sessionTable) sweepLocked(now time.Time) {
	for _, s := range t.byID {
		if t.expired(s, now) {
			t.endLocked(s)
		}
	}
}

func (t *sessionTable) expired(s *consoleSession, now time.Time) bool {
	return now.Sub(s.lastSeen) > t.idle
}

// endLocked removes a session and ends its open tails.
func (t *sessionTable) endLocked(s *consoleSession) {
	delete(t.byID, s.id)
	for _, cancel := range s.streams {
		cancel()
	}
	s.streams = map[int]context.CancelFunc{}
}

// end signs a session out.
func (t *sessionTable) end(s *consoleSession) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endLocked(s)
}

// authenticate finds the session of r's cookie and the identity its
// credential has now. touch marks a request of the user's, which keeps
// the session alive. A refusal is a status (401) and its text.
func (t *sessionTable) authenticate(r *http.Request, a *auth.Authenticator, touch bool) (*consoleSession, *auth.Identity, int, string) {
	ck, err := r.Cookie(t.cookie)
	if err != nil || ck.Value == "" {
		return nil, nil, http.StatusUnauthorized, "not signed in"
	}
	now := t.wall.Now()
	t.mu.Lock()
	s := t.byID[ck.Value]
	switch {
	case s == nil:
		t.mu.Unlock()
		return nil, nil, http.StatusUnauthorized, "signed out: sign in again"
	case t.expired(s, now):
		t.endLocked(s)
		t.mu.Unlock()
		return nil, nil, http.StatusUnauthorized, "the session expired after " + t.idle.String() + " idle: sign in again"
	}
	if touch {
		s.lastSeen = now
	}
	t.mu.Unlock()
	id, ok := a.IdentifyCredential(s.cred)
	if !ok {
		t.end(s)
		return nil, nil, http.StatusUnauthorized, "the token of this session is no longer accepted: sign in again"
	}
	return s, id, 0, ""
}

// stream registers an open tail of s, which sign-out and expiry end,
// and returns its context (ended also by ctx) and its release. The
// tail also ends when the session would expire without other activity;
// the browser then reconnects, and that request checks the session
// again.
func (t *sessionTable) stream(ctx context.Context, s *consoleSession) (context.Context, func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	left := t.idle - t.wall.Now().Sub(s.lastSeen)
	sctx, cancel := context.WithTimeout(ctx, max(left, 0))
	key := t.nextStream
	t.nextStream++
	s.streams[key] = cancel
	return sctx, func() {
		cancel()
		t.mu.Lock()
		delete(s.streams, key)
		t.mu.Unlock()
	}
}

// cookieOf is the cookie that names s (or, with s nil, clears it).
func (t *sessionTable) cookieOf(s *consoleSession, secure bool) *http.Cookie {
	ck := &http.Cookie{Name: t.cookie, Path: "/ui/", HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode}
	if s == nil {
		ck.MaxAge = -1
		return ck
	}
	ck.Value = s.id
	return ck
}
