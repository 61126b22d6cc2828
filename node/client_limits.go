package node

import (
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

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

// clientSlots counts what each client holds open (streams, or waits)
// against a per-client cap. A cap of 0 means none.
type clientSlots struct {
	what    string // "streams" or "waits", for the refusal text
	max     int
	refused prometheus.Counter
	mu      sync.Mutex
	open    map[string]int
}

func newClientSlots(what string, max int, refused *prometheus.CounterVec) *clientSlots {
	return &clientSlots{what: what, max: max, refused: refused.WithLabelValues(what), open: map[string]int{}}
}

// acquire takes a slot for key; false means the client is at its cap.
func (c *clientSlots) acquire(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.max > 0 && c.open[key] >= c.max {
		c.refused.Inc()
		return false
	}
	c.open[key]++
	return true
}

// release returns a slot acquire gave.
func (c *clientSlots) release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key]--; c.open[key] <= 0 {
		delete(c.open, key)
	}
}

// refusalText is the body text of a refusal.
func (c *clientSlots) refusalText() string {
	return "too many concurrent " + c.what + " from this client (limit " + strconv.Itoa(c.max) +
		"); retry after " + clientRetryAfter + " s"
}

// refuse answers 429 with Retry-After and {"error": text}.
func (c *clientSlots) refuse(w http.ResponseWriter) {
	w.Header().Set("Retry-After", clientRetryAfter)
	writeJSON(w, http.StatusTooManyRequests, errorJSON(c.refusalText()))
}
