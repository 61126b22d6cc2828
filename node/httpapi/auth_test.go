package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/internal/nodetest"
)

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
	{"POST", "/mcp", nodetest.ToolsList, true, 200},
	{"GET", "/mcp", "", true, 200}, // the MCP handler answers it (405 in node/mcp)
	{"DELETE", "/mcp", "", true, 200},
	{"POST", "/nope", "{}", true, 404},
}

func TestAuth_TokenMatrix(t *testing.T) {
	n := htStart(t, withToken)
	for _, rt := range authRoutes {
		for _, tc := range []struct {
			name, header string
		}{
			{"none", ""},
			{"wrong", "Bearer nope"},
			{"scheme-case", "bearer " + nodetest.SharedToken},
			{"extra-space", "Bearer  " + nodetest.SharedToken},
			{"right", "Bearer " + nodetest.SharedToken},
		} {
			t.Run(rt.method+rt.path+"/"+tc.name, func(t *testing.T) {
				h := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
				if tc.header != "" {
					h["Authorization"] = tc.header
				}
				got, hdr := nodetest.Status(t, n, nodetest.Req{Method: rt.method, Path: rt.path, Body: rt.body, Header: h})
				want := rt.ok
				if rt.auth && tc.name != "right" {
					want = http.StatusUnauthorized
				}
				if got != want {
					t.Fatalf("status %d, want %d", got, want)
				}
				switch {
				case got == http.StatusUnauthorized && rt.path == "/mcp":
					if hdr.Get("WWW-Authenticate") != `Bearer realm="lsnode"` || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
						t.Fatalf("401 on /mcp: WWW-Authenticate %q, Content-Type %q", hdr.Get("WWW-Authenticate"), hdr.Get("Content-Type"))
					}
				case got == http.StatusUnauthorized && hdr.Get("WWW-Authenticate") != "":
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
		if got, _ := nodetest.Status(t, n, nodetest.Req{Method: rt.method, Path: rt.path, Body: rt.body, Header: h}); got != rt.ok {
			t.Errorf("%s %s: status %d, want %d", rt.method, rt.path, got, rt.ok)
		}
	}
}

func TestAuth_UnauthorizedPage(t *testing.T) {
	n := htStart(t, withToken)
	r := nodetest.Get(t, n, "/statusz", "")
	if r.Status != 401 || r.Header.Get("Content-Type") != "text/html;charset=utf-8" {
		t.Fatalf("status %d type %q", r.Status, r.Header.Get("Content-Type"))
	}
	for _, want := range []string{"<p>Error code: 401</p>", "<p>Message: Unauthorized.</p>",
		"<p>Error code explanation: 401 - No permission -- see authorization schemes.</p>"} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("page lacks %q:\n%s", want, r.Body)
		}
	}
}

func TestAuth_HostPinAndOrigin(t *testing.T) {
	n := htStart(t, func(c *Options) {
		withToken(c)
		c.ExtraAllowedHosts = []string{"proxy.example", "other.example:9"}
	})
	port := strconv.Itoa(n.cfg.Port)
	bearer := "Bearer " + nodetest.SharedToken
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
				if got, _ := nodetest.Status(t, n, nodetest.Req{Path: path, Header: h}); got != want {
					t.Errorf("%s: status %d, want %d", path, got, want)
				}
			}
		})
	}
}

func TestPolicy_NonLoopbackBindDoesNotPinHost(t *testing.T) {
	p := newPolicy("0.0.0.0", 8765, nil, auth.NewAuthenticator(nodetest.SharedToken, nil))
	r := httptest.NewRequest("GET", "http://hub.example/statusz", nil)
	r.Header.Set("Authorization", "Bearer "+nodetest.SharedToken)
	if got, _ := p.check(r, true); got != 0 {
		t.Fatalf("check = %d, want 0 (no Host pin off loopback)", got)
	}
	r.Header.Set("Origin", "https://hub.example")
	if got, _ := p.check(r, true); got != 403 {
		t.Fatalf("foreign Origin: check = %d, want 403 on every bind", got)
	}
}

func TestRoutes_UnsupportedMethod(t *testing.T) {
	n := htStart(t, nil)
	r := nodetest.Do(t, n, nodetest.Req{Method: "PUT", Path: "/statusz"})
	if r.Status != 501 || !strings.Contains(r.Body, "Unsupported method ('PUT')") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}
