package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
)

const (
	recentClientLimit  = 50                // the Python hub's _HTTP_RECENT_CLIENT_LIMIT
	activeClientWindow = 120 * time.Second // the Python hub's _HTTP_ACTIVE_CLIENT_WINDOW_S
	clientTextLimit    = 160               // user_agent and tailscale_user are cut to this
)

// requestStats counts answered requests by status and remembers the most
// recent clients, for /statusz (the Python hub's "requests" and "clients").
type requestStats struct {
	mu struct {
		sync.Mutex
		total    int64
		byStatus map[int]int64
		clients  map[clientIdent]*clientRecord
	}
}

// clientIdent is what identifies a client, as the Python hub hashes it:
// the peer hint, the tailnet user, the user agent and the Host.
type clientIdent struct {
	peerHint, tailnetUser, userAgent, host string
}

// clientRecord is one recent client.
type clientRecord struct {
	ident                clientIdent
	id                   string // the hub's 16-hex hash of ident
	peer                 string
	lastSeen             time.Time
	requests             int64
	lastMethod, lastPath string
	lastStatus           int
	authenticated        bool
}

func newRequestStats() *requestStats {
	s := &requestStats{}
	s.mu.byStatus = map[int]int64{}
	s.mu.clients = map[clientIdent]*clientRecord{}
	return s
}

// record counts one answered request of r with status at time now. A
// known client's record is updated in place: its id (a hash) is computed
// once, when the client is first seen, not on every request.
func (s *requestStats) record(r *http.Request, status int, authenticated bool, now time.Time) {
	ident, peer := identify(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.total++
	s.mu.byStatus[status]++
	c, ok := s.mu.clients[ident]
	if !ok {
		c = &clientRecord{ident: ident, id: ident.hash()}
		s.mu.clients[ident] = c
	}
	c.requests++
	c.peer, c.lastSeen, c.lastMethod, c.lastPath, c.lastStatus, c.authenticated = peer, now, r.Method, r.URL.Path, status, authenticated
	s.evictLocked()
}

// evictLocked drops the least recently seen clients beyond the limit.
func (s *requestStats) evictLocked() {
	for len(s.mu.clients) > recentClientLimit {
		var oldest *clientRecord
		for _, c := range s.mu.clients {
			if oldest == nil || c.lastSeen.Before(oldest.lastSeen) {
				oldest = c
			}
		}
		delete(s.mu.clients, oldest.ident)
	}
}

// identify derives a client's identity as the Python hub does - the peer
// hint (first X-Forwarded-For entry, X-Real-IP, or the socket peer), the
// tailnet user, the user agent and the Host - and the socket peer.
func identify(r *http.Request) (clientIdent, string) {
	peer := r.RemoteAddr
	if h, _, err := net.SplitHostPort(peer); err == nil {
		peer = h
	}
	fwd, _, _ := strings.Cut(r.Header.Get("X-Forwarded-For"), ",")
	hint := strings.TrimSpace(fwd)
	if hint == "" {
		hint = strings.TrimSpace(r.Header.Get("X-Real-IP"))
	}
	if hint == "" {
		hint = peer
	}
	return clientIdent{
		peerHint:    hint,
		tailnetUser: strings.TrimSpace(r.Header.Get("Tailscale-User-Login")),
		userAgent:   strings.TrimSpace(r.Header.Get("User-Agent")),
		host:        strings.TrimSpace(r.Host),
	}, peer
}

// hash is the hub's client id: 16 hex digits of the SHA-256 of the four
// parts joined by "|".
func (c clientIdent) hash() string {
	sum := sha256.Sum256([]byte(strings.Join([]string{c.peerHint, c.tailnetUser, c.userAgent, c.host}, "|")))
	return hex.EncodeToString(sum[:8])
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// requestsPayload is /statusz "requests": {"total", "by_status"}.
func (s *requestStats) requestsPayload() pyjson.Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	codes := make([]int, 0, len(s.mu.byStatus))
	for c := range s.mu.byStatus {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	by := make(pyjson.Object, 0, len(codes))
	for _, c := range codes {
		by = append(by, pyjson.Member{Key: strconv.Itoa(c), Value: s.mu.byStatus[c]})
	}
	return pyjson.Object{{Key: "total", Value: s.mu.total}, {Key: "by_status", Value: by}}
}

// clientsPayload is /statusz "clients": the recent clients, newest first,
// and those seen within the active window.
func (s *requestStats) clientsPayload(now time.Time) pyjson.Object {
	s.mu.Lock()
	recent := make([]clientRecord, 0, len(s.mu.clients))
	for _, c := range s.mu.clients {
		recent = append(recent, *c)
	}
	s.mu.Unlock()
	sort.Slice(recent, func(i, j int) bool { return recent[i].lastSeen.After(recent[j].lastSeen) })
	active, all := []any{}, make([]any, 0, len(recent))
	for i := range recent {
		obj := recent[i].payload()
		all = append(all, obj)
		if now.Sub(recent[i].lastSeen) <= activeClientWindow {
			active = append(active, obj)
		}
	}
	return pyjson.Object{
		{Key: "active_window_seconds", Value: activeClientWindow.Seconds()},
		{Key: "active", Value: active},
		{Key: "recent", Value: all},
	}
}

func (c *clientRecord) payload() pyjson.Object {
	return pyjson.Object{
		{Key: "client_id", Value: c.id},
		{Key: "peer", Value: c.peer},
		{Key: "peer_hint", Value: c.ident.peerHint},
		{Key: "host", Value: c.ident.host},
		{Key: "user_agent", Value: cutRunes(c.ident.userAgent, clientTextLimit)},
		{Key: "tailscale_user", Value: cutRunes(c.ident.tailnetUser, clientTextLimit)},
		{Key: "last_seen", Value: pytime.LocalISO(c.lastSeen)},
		{Key: "request_count", Value: c.requests},
		{Key: "last_method", Value: c.lastMethod},
		{Key: "last_path", Value: c.lastPath},
		{Key: "last_status", Value: c.lastStatus},
		{Key: "authenticated", Value: c.authenticated},
	}
}
