package node

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/store"
)

// htStatus sends req and returns the status and headers without reading
// the body (a stream would never end).
func htStatus(t *testing.T, n *Node, req htReq) (int, http.Header) {
	t.Helper()
	if req.method == "" {
		req.method = http.MethodGet
	}
	r, _ := http.NewRequest(req.method, n.URL()+req.path, strings.NewReader(req.body))
	for k, v := range req.header {
		if strings.EqualFold(k, "Host") {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", req.method, req.path, err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

const rpcToolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// authRoutes are every route of the surface with the status a request
// carrying the right token gets.
var authRoutes = []struct {
	method, path, body string
	auth               bool
	ok                 int
}{
	{"GET", "/healthz", "", false, 200},
	{"GET", "/statusz", "", true, 200},
	{"GET", "/metrics", "", true, 200},
	{"GET", "/debug/pprof/heap", "", true, 200},
	{"GET", "/logstream/stream", "", true, 200},
	{"GET", "/logstream/events", "", true, 200},
	{"GET", "/sync/version_vector", "", true, 200},
	{"GET", "/sync/ops?origin=rep_000000000000", "", true, 200},
	{"GET", "/sync/artifact?id=art_nope", "", true, 404},
	{"GET", "/sync/peers", "", true, 200},
	{"GET", "/sync/nope", "", true, 404},
	{"GET", "/nope", "", false, 404},
	{"POST", "/mcp", rpcToolsList, true, 200},
	{"POST", "/nope", "{}", true, 404},
}

func TestAuth_TokenMatrix(t *testing.T) {
	n := htStart(t, func(c *Config) { c.Token = htToken })
	for _, rt := range authRoutes {
		for _, tc := range []struct {
			name, header string
		}{
			{"none", ""},
			{"wrong", "Bearer nope"},
			{"scheme-case", "bearer " + htToken},
			{"extra-space", "Bearer  " + htToken},
			{"right", "Bearer " + htToken},
		} {
			t.Run(rt.method+rt.path+"/"+tc.name, func(t *testing.T) {
				h := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
				if tc.header != "" {
					h["Authorization"] = tc.header
				}
				got, hdr := htStatus(t, n, htReq{method: rt.method, path: rt.path, body: rt.body, header: h})
				want := rt.ok
				if rt.auth && tc.name != "right" {
					want = http.StatusUnauthorized
				}
				if got != want {
					t.Fatalf("status %d, want %d", got, want)
				}
				if got == http.StatusUnauthorized && hdr.Get("WWW-Authenticate") != "" {
					t.Fatal("401 must not carry WWW-Authenticate (the hub sends none)")
				}
			})
		}
	}
}

func TestAuth_NoTokenConfiguredOpensEveryRoute(t *testing.T) {
	n := htStart(t, nil)
	for _, rt := range authRoutes {
		h := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
		if got, _ := htStatus(t, n, htReq{method: rt.method, path: rt.path, body: rt.body, header: h}); got != rt.ok {
			t.Errorf("%s %s: status %d, want %d", rt.method, rt.path, got, rt.ok)
		}
	}
}

func TestAuth_UnauthorizedPage(t *testing.T) {
	n := htStart(t, func(c *Config) { c.Token = htToken })
	r := htGet(t, n, "/statusz", "")
	if r.status != 401 || r.header.Get("Content-Type") != "text/html;charset=utf-8" {
		t.Fatalf("status %d type %q", r.status, r.header.Get("Content-Type"))
	}
	for _, want := range []string{"<p>Error code: 401</p>", "<p>Message: Unauthorized.</p>",
		"<p>Error code explanation: 401 - No permission -- see authorization schemes.</p>"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("page lacks %q:\n%s", want, r.body)
		}
	}
}

func TestAuth_HostPinAndOrigin(t *testing.T) {
	n := htStart(t, func(c *Config) {
		c.Token = htToken
		c.ExtraAllowedHosts = []string{"proxy.example", "other.example:9"}
	})
	port := strconv.Itoa(n.surface.port)
	bearer := "Bearer " + htToken
	cases := []struct {
		name, host, origin, auth string
		want                     int
	}{
		{"loopback literal", "127.0.0.1:" + port, "", bearer, 200},
		{"localhost no port", "localhost", "", bearer, 200},
		{"localhost upper", "LOCALHOST:" + port, "", bearer, 200},
		{"ipv6", "[::1]:" + port, "", bearer, 200},
		{"wrong port", "localhost:1", "", bearer, 403},
		{"rebinding name", "evil.example", "", bearer, 403},
		{"extra bare host", "proxy.example", "", bearer, 200},
		{"extra bare host with bound port", "proxy.example:" + port, "", bearer, 200},
		{"extra host:port exact", "other.example:9", "", bearer, 200},
		{"extra host:port other port", "other.example:" + port, "", bearer, 403},
		{"host before bearer", "evil.example", "", "", 403},
		{"loopback origin", "localhost", "http://localhost:3000", bearer, 200},
		{"ipv6 origin", "localhost", "http://[::1]:3000", bearer, 200},
		{"foreign origin", "localhost", "https://evil.example", bearer, 403},
		{"null origin", "localhost", "null", bearer, 403},
		{"origin before bearer", "localhost", "https://evil.example", "", 403},
		{"bearer last", "localhost", "http://127.0.0.1", "", 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/statusz", "/healthz"} {
				h := map[string]string{"Host": tc.host}
				if tc.origin != "" {
					h["Origin"] = tc.origin
				}
				if tc.auth != "" {
					h["Authorization"] = tc.auth
				}
				want := tc.want
				if path == "/healthz" && want == 401 {
					want = 200 // no bearer on /healthz; Host and Origin still apply
				}
				if got, _ := htStatus(t, n, htReq{path: path, header: h}); got != want {
					t.Errorf("%s: status %d, want %d", path, got, want)
				}
			}
		})
	}
}

func TestPolicy_NonLoopbackBindDoesNotPinHost(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Token = htToken
	p := newPolicy(cfg, "0.0.0.0", 8765, nil)
	r := httptest.NewRequest("GET", "http://hub.example/statusz", nil)
	r.Header.Set("Authorization", "Bearer "+htToken)
	if got, _ := p.check(r, true); got != 0 {
		t.Fatalf("check = %d, want 0 (no Host pin off loopback)", got)
	}
	r.Header.Set("Origin", "https://hub.example")
	if got, _ := p.check(r, true); got != 403 {
		t.Fatalf("foreign Origin: check = %d, want 403 on every bind", got)
	}
}

func TestMCP_RequestTooLarge(t *testing.T) {
	n := htStart(t, func(c *Config) { c.MaxRequestBytes = 1024 })
	want := `{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Request too large"}}`
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
	r := htDo(t, n, htReq{method: "POST", path: "/mcp", body: big, header: map[string]string{"Content-Type": "application/json"}})
	if r.status != 413 || r.body != want {
		t.Fatalf("declared length: %d %s", r.status, r.body)
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
	r = htDo(t, n, htReq{method: "POST", path: "/mcp", body: small + strings.Repeat(" ", 1024-len(small)),
		header: map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}})
	if r.status != 200 {
		t.Fatalf("at the cap: %d %s", r.status, r.body)
	}
}

func TestAuth_ReadOnlyKeepsReadRoutes(t *testing.T) {
	n := htStart(t, func(c *Config) { c.ReadOnly = true })
	for _, path := range []string{"/sync/version_vector", "/sync/peers", "/logstream/events", "/statusz"} {
		if r := htGet(t, n, path, ""); r.status != 200 {
			t.Errorf("%s: %d %s", path, r.status, r.body)
		}
	}
	s := htOpenStream(t, n, "", nil)
	s.close()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mempalace_event_append","arguments":` +
		`{"type":"task.request","stream":"s","room":"r","from_agent":"a"}}}`
	r := htDo(t, n, htReq{method: "POST", path: "/mcp", body: body,
		header: map[string]string{"Content-Type": "application/json", "Accept": "application/json"}})
	if !strings.Contains(r.body, "-32003") {
		t.Fatalf("read-only append: %d %s", r.status, r.body)
	}
	if htJSON(t, htGet(t, n, "/statusz", ""))["writer"].(map[string]any)["read_only"] != true {
		t.Fatal("statusz writer.read_only is not true")
	}
	// Replication still applies remote ops on a read-only node.
	src := openTestStore(t)
	w, err := src.Append(t.Context(), store.AppendInput{Type: "x", Stream: "s", Room: "r", FromAgent: "z"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := n.Store().ApplyBatch(t.Context(), store.Batch{Ops: []store.Op{{Event: w.Event}}}); err != nil || res.Applied != 1 {
		t.Fatalf("apply on a read-only node: %+v %v", res, err)
	}
}

func TestRoutes_UnsupportedMethod(t *testing.T) {
	n := htStart(t, nil)
	r := htDo(t, n, htReq{method: "PUT", path: "/statusz"})
	if r.status != 501 || !strings.Contains(r.body, "Unsupported method ('PUT')") {
		t.Fatalf("%d %s", r.status, r.body)
	}
}
