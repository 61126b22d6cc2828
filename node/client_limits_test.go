package node

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/store"
)

// clientFrom returns an HTTP client whose connections come from ip (any
// 127.0.0.0/8 address reaches a loopback bind on Linux), so a test can be
// two clients at once.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// held is how many slots key holds in c.
func (c *clientSlots) held(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open[key]
}

func doFrom(t *testing.T, hc *http.Client, n *Node, method, path, body string) htResp {
	t.Helper()
	req, err := http.NewRequest(method, n.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return htResp{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func TestClientLimits_StreamsPerClient(t *testing.T) {
	n := htStart(t, func(c *Config) { c.MaxStreamsPerClient = 1 })
	first := htOpenStream(t, n, "", nil)
	r := htDo(t, n, htReq{path: "/logstream/stream"})
	want := `{"error": "too many concurrent streams from this client (limit 1); retry after 5 s"}`
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "5" || r.body != want {
		t.Fatalf("second stream of one client: %d %v %s", r.status, r.header, r.body)
	}
	if got := htMetric(t, n, "lsnode_http_client_limit_refused_total"); got != 1 {
		t.Fatalf("refusals counted: %v", got)
	}
	// Another client is unaffected.
	other := clientFrom("127.0.0.2")
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
	first.close()
	htEventually(t, "the client's slot to free", func() bool { return n.surface.clientStreams.held("ip 127.0.0.1") == 0 })
	htOpenStream(t, n, "", nil)
}

func TestClientLimits_WaitsPerClient(t *testing.T) {
	n := htStart(t, func(c *Config) { c.MaxWaitsPerClient = 1 })
	// One long poll of client A holds its only wait slot.
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
	htEventually(t, "the long poll to hold a slot", func() bool { return n.surface.clientWaits.held("ip 127.0.0.1") == 1 })

	r := htDo(t, n, htReq{path: "/logstream/events?wait_ms=10"})
	want := `{"error": "too many concurrent waits from this client (limit 1); retry after 5 s"}`
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "5" || r.body != want {
		t.Fatalf("second long poll: %d %v %s", r.status, r.header, r.body)
	}
	wait := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mempalace_event_wait","arguments":{"timeout_ms":10}}}`
	r = doFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", wait)
	var rpc struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.body), &rpc); err != nil || r.status != http.StatusTooManyRequests ||
		r.header.Get("Retry-After") != "5" || string(rpc.ID) != "9" || rpc.Error.Code != codeToolFailure ||
		rpc.Error.Message != "too many concurrent waits from this client (limit 1); retry after 5 s" {
		t.Fatalf("event_wait over the cap: %d %v %s", r.status, r.header, r.body)
	}
	// The same name escaped is the same call, and counts the same.
	escaped := strings.Replace(wait, "mempalace_event_wait", `mempalace_event\u005fwait`, 1)
	if r := doFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", escaped); r.status != http.StatusTooManyRequests {
		t.Fatalf("escaped event_wait over the cap: %d %s", r.status, r.body)
	}
	// Requests that do not wait are not capped.
	if r := htDo(t, n, htReq{path: "/logstream/events"}); r.status != http.StatusOK {
		t.Fatalf("a page without wait_ms: %d %s", r.status, r.body)
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{}}}`
	if r := doFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", list); r.status != http.StatusOK {
		t.Fatalf("event_list: %d %s", r.status, r.body)
	}
	// Another client waits as usual, through both doors.
	other := clientFrom("127.0.0.2")
	if r := doFrom(t, other, n, http.MethodGet, "/logstream/events?wait_ms=10", ""); r.status != http.StatusOK ||
		!strings.Contains(r.body, `"timed_out": true`) {
		t.Fatalf("another client's long poll: %d %s", r.status, r.body)
	}
	if r := doFrom(t, other, n, http.MethodPost, "/mcp", wait); r.status != http.StatusOK || !strings.Contains(r.body, "timed_out") {
		t.Fatalf("another client's event_wait: %d %s", r.status, r.body)
	}
	// A's slot comes back when its wait ends.
	cancel()
	if err := <-held; err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("held long poll ended with %v", err)
	}
	htEventually(t, "the wait slot to free", func() bool { return n.surface.clientWaits.held("ip 127.0.0.1") == 0 })
	if r := doFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", wait); r.status != http.StatusOK {
		t.Fatalf("event_wait after the slot freed: %d %s", r.status, r.body)
	}
}

// TestHTTPServer_Slowloris: a client that dribbles its headers is
// disconnected after the header timeout, while other clients are served.
func TestHTTPServer_Slowloris(t *testing.T) {
	n := htStart(t, func(c *Config) { c.ReadHeaderTimeout = 200 * time.Millisecond })
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
			if r := htGet(t, n, "/healthz", ""); r.status != http.StatusOK {
				t.Fatalf("healthz after: %d", r.status)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("a client dribbling headers held its connection for 5 s")
		}
		_, _ = io.WriteString(conn, "X-Slow: a\r\n") // fails once the server closed; the reader reports it
		if r := htGet(t, n, "/healthz", ""); r.status != http.StatusOK {
			t.Fatalf("healthz during a slow client: %d", r.status)
		}
	}
}

// TestHTTPServer_SlowBody: a body dribbled past the read timeout is
// refused and nothing of it is stored.
func TestHTTPServer_SlowBody(t *testing.T) {
	n := htStart(t, func(c *Config) { c.ReadTimeout = 300 * time.Millisecond })
	conn, err := net.Dial("tcp", strings.TrimPrefix(n.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_append","arguments":` +
		`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"` + strings.Repeat("x", 200) + `"}}}`
	head := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, conn)
		close(closed)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		select {
		case <-closed:
			if stats, err := n.store.Stats(context.Background()); err != nil || stats.Events != 0 {
				t.Fatalf("a body cut by the read timeout stored %d events (%v)", stats.Events, err)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) || i >= len(body)-1 {
			t.Fatal("a client dribbling its body held the connection")
		}
		_, _ = io.WriteString(conn, body[i:i+1]) // never the last byte
	}
}

// TestHTTPServer_ReadTimeoutSparesResponses: streams and long polls
// outlive the read timeout; it bounds requests only.
func TestHTTPServer_ReadTimeoutSparesResponses(t *testing.T) {
	n := htStart(t, func(c *Config) { c.ReadTimeout = 100 * time.Millisecond })
	s := htOpenStream(t, n, "", nil)
	start := time.Now()
	r := htDo(t, n, htReq{path: "/logstream/events?wait_ms=600"})
	if r.status != http.StatusOK || !strings.Contains(r.body, `"timed_out": true`) || time.Since(start) < 500*time.Millisecond {
		t.Fatalf("long poll past the read timeout: %d after %v: %s", r.status, time.Since(start), r.body)
	}
	e := htAppend(t, n, store.AppendInput{Type: "t", Stream: "s", Room: "r", FromAgent: "a"})
	if got := s.nextEvent(t); got.ID != e.ID {
		t.Fatalf("stream past the read timeout got %q, want %q", got.ID, e.ID)
	}
}

// TestHTTPServer_IdleAndHeaderLimits: an idle keep-alive connection is
// closed after the idle timeout; a header block over the cap gets 431.
func TestHTTPServer_IdleAndHeaderLimits(t *testing.T) {
	n := htStart(t, func(c *Config) {
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

	big := htDo(t, n, htReq{path: "/healthz", header: map[string]string{"X-Big": strings.Repeat("b", 16<<10)}})
	if big.status != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("16 KiB header over a 4 KiB cap: %d", big.status)
	}
}

// TestMCP_OversizeBodyStoresNothing: a write over --max-request-bytes,
// declared or chunked, is refused with 413 and stores nothing.
func TestMCP_OversizeBodyStoresNothing(t *testing.T) {
	n := htStart(t, func(c *Config) { c.MaxRequestBytes = 2048 })
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_append","arguments":` +
		`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"` + strings.Repeat("x", 4096) + `"}}}`
	if r := doFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", body); r.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("declared oversize body: %d %s", r.status, r.body)
	}
	req, _ := http.NewRequest(http.MethodPost, n.URL()+"/mcp", io.MultiReader(strings.NewReader(body)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || req.ContentLength != 0 {
		t.Fatalf("chunked oversize body: %d (declared %d)", resp.StatusCode, req.ContentLength)
	}
	if stats, err := n.store.Stats(context.Background()); err != nil || stats.Events != 0 {
		t.Fatalf("oversize writes stored %d events (%v)", stats.Events, err)
	}
}

// TestGRPCServer_HandshakeTimeout: an inbound replication connection
// that never sends its HTTP/2 preface is closed after the handshake
// timeout.
func TestGRPCServer_HandshakeTimeout(t *testing.T) {
	n := htStart(t, func(c *Config) {
		c.GRPCAddr = "127.0.0.1:0"
		c.GRPCHandshakeTimeout = 200 * time.Millisecond
	})
	conn, err := net.Dial("tcp", n.cluster.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second)) // half the default timeout
	_, err = io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("a silent replication connection was held for 5 s")
	}
}

// TestClientLimits_KeyedByToken: with a tokens file, a named token is the
// client: two tokens from one address have a cap each, and one token's
// cap holds whatever address it comes from.
func TestClientLimits_KeyedByToken(t *testing.T) {
	n := tkStart(t, tkFile)
	w := n.surface.clientWaits
	w.mu.Lock()
	w.max = 1 // tkStart takes no configuration; acquire reads max under mu
	w.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := make(chan struct{})
	go func() {
		defer close(held)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.URL()+"/logstream/events?wait_ms=60000", nil)
		req.Header.Set("Authorization", "Bearer "+tkAgent)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	htEventually(t, "the agent token's wait", func() bool { return n.surface.clientWaits.held("token pi") == 1 })
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
	if code := get(clientFrom("127.0.0.2"), tkAgent); code != http.StatusTooManyRequests {
		t.Fatalf("the same token from another address: %d", code)
	}
	if code := get(http.DefaultClient, tkAdmin); code != http.StatusOK {
		t.Fatalf("another token from the same address: %d", code)
	}
	cancel()
	<-held
}
