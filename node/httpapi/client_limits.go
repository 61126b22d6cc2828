package httpapi

import (
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/node/auth"
)

// clientRetryAfter is the Retry-After (seconds) of a per-client refusal,
// as the global stream cap answers.
const clientRetryAfter = "5"

// clientKey names the client a request counts against for the
// per-client caps: the name of its token from the tokens file when it
// has one (an agent keeps its caps across addresses, and agents sharing
// a host have their own), else its remote IP, so that one host cannot
// take every stream or wait by opening connections.
func clientKey(r *http.Request) string {
	if name := auth.IdentityFrom(r.Context()).Name(); name != "" {
		return "token " + name
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip " + host
}

// ClientSlots counts what each client holds open (streams, or waits)
// against a per-client cap. A cap of 0 means none. The surface's long
// polls and the MCP handler's event_waits share one (Server.Waits).
type ClientSlots struct {
	what    string // "streams" or "waits", for the refusal text
	max     int
	refused prometheus.Counter
	mu      sync.Mutex
	open    map[string]int
}

func newClientSlots(what string, max int, refused *prometheus.CounterVec) *ClientSlots {
	return &ClientSlots{what: what, max: max, refused: refused.WithLabelValues(what), open: map[string]int{}}
}

// Acquire takes a slot for r's client (clientKey); false means the
// client is at its cap.
func (c *ClientSlots) Acquire(r *http.Request) bool {
	key := clientKey(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max > 0 && c.open[key] >= c.max {
		c.refused.Inc()
		return false
	}
	c.open[key]++
	return true
}

// Release returns the slot Acquire took for r.
func (c *ClientSlots) Release(r *http.Request) {
	key := clientKey(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key]--; c.open[key] <= 0 {
		delete(c.open, key)
	}
}

// Refusal is the text of a refusal and its Retry-After, in seconds.
func (c *ClientSlots) Refusal() (text, retryAfter string) {
	return "too many concurrent " + c.what + " from this client (limit " + strconv.Itoa(c.max) +
		"); retry after " + clientRetryAfter + " s", clientRetryAfter
}

// refuse answers 429 with Retry-After and {"error": text}.
func (c *ClientSlots) refuse(w http.ResponseWriter) {
	text, retryAfter := c.Refusal()
	w.Header().Set("Retry-After", retryAfter)
	writeJSON(w, http.StatusTooManyRequests, syncwire.ErrorAnswer(text))
}
