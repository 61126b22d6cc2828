package node

import (
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

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// The tests here hold the two surfaces as the node composes them: what
// the node's configuration sets in both, and what they share.

// TestClientLimits_WaitsShareOneCap: the per-client cap of waits is one
// for both surfaces. One long poll of client A holds its only slot; its
// second long poll and its mempalace_event_wait (the name escaped too)
// are refused with 429 and Retry-After, a page and an event_list are not;
// another client waits through both doors; A's slot comes back when its
// poll ends.
func TestClientLimits_WaitsShareOneCap(t *testing.T) {
	n := htStart(t, func(c *Config) { c.HTTP.MaxWaitsPerClient = 1 })
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
	testwait.Until(t, 10*time.Second, "the long poll to hold a slot", func() bool {
		return nodetest.Metric(t, n.reg, "lsnode_http_long_polls") == 1
	})

	r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/events?wait_ms=10"})
	want := `{"error": "too many concurrent waits from this client (limit 1); retry after 5 s"}`
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "5" || r.Body != want {
		t.Fatalf("second long poll: %d %v %s", r.Status, r.Header, r.Body)
	}
	wait := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mempalace_event_wait","arguments":{"timeout_ms":10}}}`
	r = nodetest.DoFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", wait)
	var rpc struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	// -32000 is the hub's tool failure.
	if err := json.Unmarshal([]byte(r.Body), &rpc); err != nil || r.Status != http.StatusTooManyRequests ||
		r.Header.Get("Retry-After") != "5" || string(rpc.ID) != "9" || rpc.Error.Code != -32000 ||
		rpc.Error.Message != "too many concurrent waits from this client (limit 1); retry after 5 s" {
		t.Fatalf("event_wait over the cap: %d %v %s", r.Status, r.Header, r.Body)
	}
	// The same name escaped is the same call, and counts the same.
	escaped := strings.Replace(wait, "mempalace_event_wait", `mempalace_event\u005fwait`, 1)
	if r := nodetest.DoFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", escaped); r.Status != http.StatusTooManyRequests {
		t.Fatalf("escaped event_wait over the cap: %d %s", r.Status, r.Body)
	}
	// Requests that do not wait are not capped.
	if r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/events"}); r.Status != http.StatusOK {
		t.Fatalf("a page without wait_ms: %d %s", r.Status, r.Body)
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{}}}`
	if r := nodetest.DoFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", list); r.Status != http.StatusOK {
		t.Fatalf("event_list: %d %s", r.Status, r.Body)
	}
	// Another client waits as usual, through both doors.
	other := nodetest.ClientFrom("127.0.0.2")
	if r := nodetest.DoFrom(t, other, n, http.MethodGet, "/logstream/events?wait_ms=10", ""); r.Status != http.StatusOK ||
		!strings.Contains(r.Body, `"timed_out": true`) {
		t.Fatalf("another client's long poll: %d %s", r.Status, r.Body)
	}
	if r := nodetest.DoFrom(t, other, n, http.MethodPost, "/mcp", wait); r.Status != http.StatusOK || !strings.Contains(r.Body, "timed_out") {
		t.Fatalf("another client's event_wait: %d %s", r.Status, r.Body)
	}
	// A's slot comes back when its wait ends.
	cancel()
	if err := <-held; err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("held long poll ended with %v", err)
	}
	testwait.Until(t, 10*time.Second, "an event_wait admitted once the slot freed", func() bool {
		return nodetest.DoFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", wait).Status == http.StatusOK
	})
}

// TestHTTPServer_SlowBody: a body dribbled past the read timeout is
// refused and nothing of it is stored.
func TestHTTPServer_SlowBody(t *testing.T) {
	n := htStart(t, func(c *Config) { c.HTTP.ReadTimeout = 300 * time.Millisecond })
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
			if stats, err := n.Store().Stats(context.Background()); err != nil || stats.Events != 0 {
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

// TestMCP_OversizeBodyStoresNothing: a write over --max-request-bytes,
// declared or chunked, is refused with 413 and stores nothing.
func TestMCP_OversizeBodyStoresNothing(t *testing.T) {
	n := htStart(t, func(c *Config) { c.MCP.MaxRequestBytes = 2048 })
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_append","arguments":` +
		`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"` + strings.Repeat("x", 4096) + `"}}}`
	if r := nodetest.DoFrom(t, http.DefaultClient, n, http.MethodPost, "/mcp", body); r.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("declared oversize body: %d %s", r.Status, r.Body)
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
	if stats, err := n.Store().Stats(context.Background()); err != nil || stats.Events != 0 {
		t.Fatalf("oversize writes stored %d events (%v)", stats.Events, err)
	}
}

func TestMCP_RequestTooLarge(t *testing.T) {
	n := htStart(t, func(c *Config) { c.MCP.MaxRequestBytes = 1024 })
	want := `{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Request too large"}}`
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
	r := nodetest.Do(t, n, nodetest.Req{Method: "POST", Path: "/mcp", Body: big, Header: map[string]string{"Content-Type": "application/json"}})
	if r.Status != 413 || r.Body != want {
		t.Fatalf("declared length: %d %s", r.Status, r.Body)
	}
	// A chunked body declares no length; the cap holds while reading.
	req, _ := http.NewRequest("POST", n.URL()+"/mcp", io.MultiReader(strings.NewReader(big)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || string(b) != want {
		t.Fatalf("chunked: %d %s", resp.StatusCode, b)
	}
	// At the cap exactly, the request reaches the MCP handler.
	small := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	r = nodetest.Do(t, n, nodetest.Req{Method: "POST", Path: "/mcp", Body: small + strings.Repeat(" ", 1024-len(small)),
		Header: map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}})
	if r.Status != 200 {
		t.Fatalf("at the cap: %d %s", r.Status, r.Body)
	}
}

func TestAuth_ReadOnlyKeepsReadRoutes(t *testing.T) {
	n := htStart(t, func(c *Config) { c.MCP.ReadOnly = true })
	for _, path := range []string{"/sync/version_vector", "/sync/peers", "/logstream/events", "/statusz"} {
		if r := nodetest.Get(t, n, path, ""); r.Status != 200 {
			t.Errorf("%s: %d %s", path, r.Status, r.Body)
		}
	}
	s := nodetest.OpenStream(t, n, "", nil)
	s.Close()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mempalace_event_append","arguments":` +
		`{"type":"task.request","stream":"s","room":"r","from_agent":"a"}}}`
	r := nodetest.Do(t, n, nodetest.Req{Method: "POST", Path: "/mcp", Body: body,
		Header: map[string]string{"Content-Type": "application/json", "Accept": "application/json"}})
	if !strings.Contains(r.Body, "-32003") {
		t.Fatalf("read-only append: %d %s", r.Status, r.Body)
	}
	if nodetest.JSON(t, nodetest.Get(t, n, "/statusz", ""))["writer"].(map[string]any)["read_only"] != true {
		t.Fatal("statusz writer.read_only is not true")
	}
	// Replication still applies remote ops on a read-only node.
	src := nodetest.OpenStore(t)
	w, err := src.Append(t.Context(), store.AppendInput{Type: "x", Stream: "s", Room: "r", FromAgent: "z"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := n.Store().ApplyBatch(t.Context(), store.Batch{Ops: []store.Op{{Event: w.Event}}}); err != nil || res.Applied != 1 {
		t.Fatalf("apply on a read-only node: %+v %v", res, err)
	}
}

// TestSSE_DefaultCapsAnswerTheHubs503 holds one client to the hub's
// refusal at the default caps: the per-client cap equals the global one,
// so a single host (every agent of a loopback hub) reaches the global cap
// first and must get the hub's 503, not the per-client 429.
func TestSSE_DefaultCapsAnswerTheHubs503(t *testing.T) {
	n := htStart(t, nil)
	for range httpapi.DefaultSSEMaxClients {
		nodetest.OpenStream(t, n, "", nil)
	}
	r := nodetest.Do(t, n, nodetest.Req{Path: "/logstream/stream"})
	if r.Status != 503 || r.Header.Get("Retry-After") != "5" || r.Header.Get("Content-Length") != "0" || r.Body != "" {
		t.Fatalf("stream %d of one client: %d %v %q", httpapi.DefaultSSEMaxClients+1, r.Status, r.Header, r.Body)
	}
}

// TestMCPWaitWithinMaxLongPoll: a node whose MaxLongPoll is below the
// hub's 300 s clamp ends an event_wait at MaxLongPoll with a timed-out
// answer, instead of waiting past the write deadline it set from
// MaxLongPoll and dropping the connection.
func TestMCPWaitWithinMaxLongPoll(t *testing.T) {
	n := htStart(t, func(c *Config) { c.HTTP.MaxLongPoll = 100 * time.Millisecond; c.HTTP.WriteTimeout = 2 * time.Second })
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_wait","arguments":{"to_agent":"nobody","timeout_ms":5000}}}`
	r := nodetest.Do(t, n, nodetest.Req{Method: "POST", Path: "/mcp", Body: body})
	if r.Status != 200 || !strings.Contains(r.Body, `\"timed_out\": true`) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// TestMetrics: a node given no registry makes one with the Go and
// process collectors, and serves it with the surface's own at /metrics.
func TestMetrics(t *testing.T) {
	n := htStart(t, func(c *Config) { c.Auth.Token = nodetest.SharedToken; c.Registry = nil })
	nodetest.Get(t, n, "/healthz", "")
	nodetest.Get(t, n, "/statusz", "")
	r := nodetest.Get(t, n, "/metrics", nodetest.SharedToken)
	for _, want := range []string{
		`lsnode_http_requests_total{code="200",route="/healthz"} 1`,
		`lsnode_http_requests_total{code="401",route="/statusz"} 1`,
		"lsnode_sse_clients 0",
		"go_goroutines",
		"process_",
		`lsnode_http_request_duration_seconds_bucket{route="/healthz"`,
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("content type %q", r.Header.Get("Content-Type"))
	}
}

// TestOriginProgress: /statusz's catch-up rows carry the replicator's
// figures, behind_ops counted from what is held to the target.
func TestOriginProgress(t *testing.T) {
	got := originProgress([]grpcpeer.OriginLag{{Origin: "rep_b", Held: 250, Target: 1000, Seconds: 1.23456, Rate: 99.6}})
	if len(got) != 1 || got[0].Origin != "rep_b" || got[0].Held != 250 || got[0].Target != 1000 || got[0].BehindOps != 750 ||
		got[0].BehindSeconds != 1.23456 || got[0].OpsPerSecond != 99.6 {
		t.Fatalf("origin progress %+v", got)
	}
}
