package node

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

	"github.com/lsnode/lsnode/store/pyjson"
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
		clients  map[string]*clientRecord
	}
}

// clientRecord is one recent client, keyed by a hash of its identity.
type clientRecord struct {
	id, peer, peerHint, host, userAgent, tailnetUser string
	lastSeen                                         time.Time
	requests                                         int64
	lastMethod, lastPath                             string
	lastStatus                                       int
	authenticated                                    bool
}

func newRequestStats() *requestStats {
	s := &requestStats{}
	s.mu.byStatus = map[int]int64{}
	s.mu.clients = map[string]*clientRecord{}
	return s
}

// record counts one answered request of r with status at time now.
func (s *requestStats) record(r *http.Request, status int, authenticated bool, now time.Time) {
	c := identify(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.total++
	s.mu.byStatus[status]++
	if prev, ok := s.mu.clients[c.id]; ok {
		c.requests = prev.requests
	}
	c.requests++
	c.lastSeen, c.lastMethod, c.lastPath, c.lastStatus, c.authenticated = now, r.Method, r.URL.Path, status, authenticated
	s.mu.clients[c.id] = c
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
		delete(s.mu.clients, oldest.id)
	}
}

// identify derives a client's identity as the Python hub does: the peer
// hint (first X-Forwarded-For entry, X-Real-IP, or the socket peer), the
// tailnet user, the user agent and the Host, hashed into a 16-hex id.
func identify(r *http.Request) *clientRecord {
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
	tailnet := strings.TrimSpace(r.Header.Get("Tailscale-User-Login"))
	ua := strings.TrimSpace(r.Header.Get("User-Agent"))
	host := strings.TrimSpace(r.Host)
	sum := sha256.Sum256([]byte(strings.Join([]string{hint, tailnet, ua, host}, "|")))
	return &clientRecord{
		id: hex.EncodeToString(sum[:])[:16], peer: peer, peerHint: hint, host: host,
		userAgent: cutRunes(ua, clientTextLimit), tailnetUser: cutRunes(tailnet, clientTextLimit),
	}
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
		{Key: "peer_hint", Value: c.peerHint},
		{Key: "host", Value: c.host},
		{Key: "user_agent", Value: c.userAgent},
		{Key: "tailscale_user", Value: c.tailnetUser},
		{Key: "last_seen", Value: c.lastSeen.Local().Format("2006-01-02T15:04:05.000000")},
		{Key: "request_count", Value: c.requests},
		{Key: "last_method", Value: c.lastMethod},
		{Key: "last_path", Value: c.lastPath},
		{Key: "last_status", Value: c.lastStatus},
		{Key: "authenticated", Value: c.authenticated},
	}
}
