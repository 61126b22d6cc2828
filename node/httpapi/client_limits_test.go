package httpapi

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// held is how many slots key holds in c.
func (c *ClientSlots) held(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open[key]
}

func TestClientLimits_StreamsPerClient(t *testing.T) {
	n := htStart(t, func(c *Options) { c.MaxStreamsPerClient = 1 })
	first := nodetest.OpenStream(t, n, "", nil)
	r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/stream"})
	want := `{"error": "too many concurrent streams from this client (limit 1); retry after 5 s"}`
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "5" || r.Body != want {
		t.Fatalf("second stream of one client: %d %v %s", r.Status, r.Header, r.Body)
	}
	if got := nodetest.Metric(t, n.reg, "lsnode_http_client_limit_refused_total"); got != 1 {
		t.Fatalf("refusals counted: %v", got)
	}
	// Another client is unaffected.
	other := nodetest.ClientFrom("127.0.0.2")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.URL()+"/logstream/stream", nil)
	resp, err := other.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("another client's stream: %d", resp.StatusCode)
	}
	// The slot is the client's again once its stream ends.
	first.Close()
	testwait.Until(t, 10*time.Second, "the client's slot to free", func() bool { return n.clientStreams.held("ip 127.0.0.1") == 0 })
	nodetest.OpenStream(t, n, "", nil)
}

// TestClientLimits_WaitsPerClient: one long poll of a client holds its
// only wait slot; its second is refused with 429, Retry-After and the
// JSON error, pages without wait_ms are not capped, another client waits
// as usual, and the slot comes back when the poll ends. (node's
// TestClientLimits_WaitsShareOneCap holds mempalace_event_wait to the
// same slots.)
func TestClientLimits_WaitsPerClient(t *testing.T) {
	n := htStart(t, func(c *Options) { c.MaxWaitsPerClient = 1 })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.URL()+"/logstream/events?wait_ms=60000", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		held <- err
	}()
	testwait.Until(t, 10*time.Second, "the long poll to hold a slot", func() bool { return n.clientWaits.held("ip 127.0.0.1") == 1 })

	r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/events?wait_ms=10"})
	want := `{"error": "too many concurrent waits from this client (limit 1); retry after 5 s"}`
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "5" || r.Body != want {
		t.Fatalf("second long poll: %d %v %s", r.Status, r.Header, r.Body)
	}
	// Requests that do not wait are not capped.
	if r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/events"}); r.Status != http.StatusOK {
		t.Fatalf("a page without wait_ms: %d %s", r.Status, r.Body)
	}
	// Another client waits as usual.
	other := nodetest.ClientFrom("127.0.0.2")
	if r := nodetest.DoFrom(t, other, n, http.MethodGet, "/logstream/events?wait_ms=10", ""); r.Status != http.StatusOK ||
		!strings.Contains(r.Body, `"timed_out": true`) {
		t.Fatalf("another client's long poll: %d %s", r.Status, r.Body)
	}
	// A's slot comes back when its wait ends.
	cancel()
	if err := <-held; err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("held long poll ended with %v", err)
	}
	testwait.Until(t, 10*time.Second, "the wait slot to free", func() bool { return n.clientWaits.held("ip 127.0.0.1") == 0 })
	if r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/events?wait_ms=10"}); r.Status != http.StatusOK {
		t.Fatalf("long poll after the slot freed: %d %s", r.Status, r.Body)
	}
}

// TestHTTPServer_Slowloris: a client that dribbles its headers is
// disconnected after the header timeout, while other clients are served.
func TestHTTPServer_Slowloris(t *testing.T) {
	n := htStart(t, func(c *Options) { c.ReadHeaderTimeout = 200 * time.Millisecond })
	conn, err := net.Dial("tcp", strings.TrimPrefix(n.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	closed := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(conn) // until the server closes the connection
		closed <- b
	}()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second) // 25 times the timeout, half the default
	for {
		select {
		case got := <-closed:
			if len(got) != 0 {
				t.Fatalf("the dribbling client got an answer: %q", got)
			}
			if r := nodetest.Get(t, n, "/healthz", ""); r.Status != http.StatusOK {
				t.Fatalf("healthz after: %d", r.Status)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("a client dribbling headers held its connection for 5 s")
		}
		_, _ = io.WriteString(conn, "X-Slow: a\r\n") // fails once the server closed; the reader reports it
		if r := nodetest.Get(t, n, "/healthz", ""); r.Status != http.StatusOK {
			t.Fatalf("healthz during a slow client: %d", r.Status)
		}
	}
}

// TestHTTPServer_ReadTimeoutSparesResponses: streams and long polls
// outlive the read timeout; it bounds requests only.
func TestHTTPServer_ReadTimeoutSparesResponses(t *testing.T) {
	n := htStart(t, func(c *Options) { c.ReadTimeout = 100 * time.Millisecond })
	s := nodetest.OpenStream(t, n, "", nil)
	start := time.Now()
	r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/events?wait_ms=600"})
	if r.Status != http.StatusOK || !strings.Contains(r.Body, `"timed_out": true`) || time.Since(start) < 500*time.Millisecond {
		t.Fatalf("long poll past the read timeout: %d after %v: %s", r.Status, time.Since(start), r.Body)
	}
	e := nodetest.Append(t, n.Store(), store.AppendInput{Type: "t", Stream: "s", Room: "r", FromAgent: "a"})
	if got := s.NextEvent(t); got.ID != e.ID {
		t.Fatalf("stream past the read timeout got %q, want %q", got.ID, e.ID)
	}
}

// TestHTTPServer_IdleAndHeaderLimits: an idle keep-alive connection is
// closed after the idle timeout; a header block over the cap gets 431.
func TestHTTPServer_IdleAndHeaderLimits(t *testing.T) {
	n := htStart(t, func(c *Options) {
		c.IdleTimeout = 200 * time.Millisecond
		c.MaxHeaderBytes = 4 << 10
	})
	conn, err := net.Dial("tcp", strings.TrimPrefix(n.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("first request: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if b, err := br.ReadByte(); err == nil || !errors.Is(err, io.EOF) {
		t.Fatalf("idle connection: read %q, %v; want the server to close it", b, err)
	}

	big := nodetest.Do(t, n, nodetest.Req{Path: "/healthz", Header: map[string]string{"X-Big": strings.Repeat("b", 16<<10)}})
	if big.Status != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("16 KiB header over a 4 KiB cap: %d", big.Status)
	}
}

// TestClientLimits_KeyedByToken: with a tokens file, a named token is the
// client: two tokens from one address have a cap each, and one token's
// cap holds whatever address it comes from.
func TestClientLimits_KeyedByToken(t *testing.T) {
	n := tkStart(t)
	w := n.clientWaits
	w.mu.Lock()
	w.max = 1 // tkStart takes no configuration; acquire reads max under mu
	w.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := make(chan struct{})
	go func() {
		defer close(held)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.URL()+"/logstream/events?wait_ms=60000", nil)
		req.Header.Set("Authorization", "Bearer "+nodetest.AgentToken)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	testwait.Until(t, 10*time.Second, "the agent token's wait", func() bool { return n.clientWaits.held("token pi") == 1 })
	get := func(hc *http.Client, token string) int {
		req, _ := http.NewRequest(http.MethodGet, n.URL()+"/logstream/events?wait_ms=10", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(nodetest.ClientFrom("127.0.0.2"), nodetest.AgentToken); code != http.StatusTooManyRequests {
		t.Fatalf("the same token from another address: %d", code)
	}
	if code := get(http.DefaultClient, nodetest.AdminToken); code != http.StatusOK {
		t.Fatalf("another token from the same address: %d", code)
	}
	cancel()
	<-held
}
