package httpapi

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/node/internal/nodetest"
)

// sessionCookieOf is the console's Set-Cookie of an answer.
func sessionCookieOf(t *testing.T, s *consoleServer, resp nodetest.Resp) *http.Cookie {
	t.Helper()
	name := consoleCookie + strconv.Itoa(s.cfg.Port)
	for _, c := range (&http.Response{Header: resp.Header}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestConsole_SignInSetsStrictSessionCookie(t *testing.T) {
	for _, tc := range []struct {
		scheme string
		secure bool
	}{{"http", false}, {"https", true}} {
		t.Run(tc.scheme, func(t *testing.T) {
			s := csStart(t, csOptions{scheme: tc.scheme})
			resp := s.browser(t).signIn(nodetest.SharedToken)
			if resp.Status != http.StatusOK {
				t.Fatalf("sign in: %d %s", resp.Status, resp.Body)
			}
			c := sessionCookieOf(t, s, resp)
			if c == nil {
				t.Fatalf("no session cookie in %v", resp.Header["Set-Cookie"])
			}
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/ui/" || c.Secure != tc.secure {
				t.Fatalf("cookie %q: HttpOnly %v SameSite %v Path %q Secure %v; want HttpOnly, Strict, /ui/, Secure %v",
					c.Raw, c.HttpOnly, c.SameSite, c.Path, c.Secure, tc.secure)
			}
			if len(c.Value) < 40 || strings.Contains(resp.Body, nodetest.SharedToken) || strings.Contains(c.Value, nodetest.SharedToken) {
				t.Fatalf("session id %q or answer leaks the token or is short: %s", c.Value, resp.Body)
			}
		})
	}
}

func TestConsole_WrongTokenRefused(t *testing.T) {
	s := csStart(t, csOptions{})
	for _, token := range []string{"", "nope", "Bearer " + nodetest.SharedToken, nodetest.SharedToken + " "} {
		b := s.browser(t)
		resp := b.signIn(token)
		if resp.Status != http.StatusUnauthorized || sessionCookieOf(t, s, resp) != nil {
			t.Fatalf("token %q: %d %v %s; want 401 and no cookie", token, resp.Status, resp.Header["Set-Cookie"], resp.Body)
		}
		if got := b.get("/ui/api/agents"); got.Status != http.StatusUnauthorized {
			t.Fatalf("token %q: agents %d after a refused sign-in", token, got.Status)
		}
	}
	if n := len(s.console.sessions.byID); n != 0 {
		t.Fatalf("%d sessions kept after refused sign-ins", n)
	}
}

func TestConsole_CSRFMissingOrWrongStoresNothing(t *testing.T) {
	s := csStart(t, csOptions{})
	b := s.browser(t)
	b.mustSignIn(nodetest.SharedToken)
	other := s.browser(t)
	other.mustSignIn(nodetest.SharedToken)
	args := map[string]any{"type": "task.request", "stream": "s", "room": "r", "from_agent": "alice", "to_agent": "bob", "body": "hi"}
	for name, header := range map[string]map[string]string{
		"missing":           {csrfHeader: ""},
		"wrong":             {csrfHeader: "x" + b.csrf[1:]},
		"another session's": {csrfHeader: other.csrf},
		"prefix only":       {csrfHeader: b.csrf[:10]},
	} {
		if resp := b.compose("event_append", args, header); resp.Status != http.StatusForbidden {
			t.Fatalf("%s CSRF token: %d %s; want 403", name, resp.Status, resp.Body)
		}
	}
	if resp := b.do(http.MethodPost, "/ui/api/signout", "{}", map[string]string{csrfHeader: ""}); resp.Status != http.StatusForbidden {
		t.Fatalf("sign-out without a CSRF token: %d", resp.Status)
	}
	if n := eventCount(t, s.store); n != 0 {
		t.Fatalf("%d events stored by refused requests", n)
	}
	if resp := b.compose("event_append", args, nil); resp.Status != http.StatusOK || eventCount(t, s.store) != 1 {
		t.Fatalf("with the CSRF token: %d %s, %d events", resp.Status, resp.Body, eventCount(t, s.store))
	}
}

func TestConsole_WritesAreJSONOnly(t *testing.T) {
	s := csStart(t, csOptions{})
	b := s.browser(t)
	resp := b.do(http.MethodPost, "/ui/api/signin", "token="+nodetest.SharedToken, map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if resp.Status != http.StatusUnsupportedMediaType || sessionCookieOf(t, s, resp) != nil {
		t.Fatalf("form-encoded sign-in: %d %s; want 415 and no session", resp.Status, resp.Body)
	}
}

func TestConsole_ContentSecurityPolicy(t *testing.T) {
	s := csStart(t, csOptions{})
	b := s.browser(t)
	for _, path := range []string{"/ui/", "/ui/app.js", "/ui/console.css", "/ui/api/session", "/ui/api/agents", "/ui/nope"} {
		resp := b.get(path)
		if got := resp.Header.Get("Content-Security-Policy"); got != consoleCSP {
			t.Fatalf("%s: CSP %q; want %q", path, got, consoleCSP)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("%s: headers %v", path, resp.Header)
		}
	}
	if !strings.Contains(consoleCSP, "script-src 'self'") || strings.Contains(consoleCSP, "unsafe") {
		t.Fatalf("CSP %q allows inline script", consoleCSP)
	}
	// No inline script or handler in the page, which the policy would
	// block anyway.
	page := b.get("/ui/").Body
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(page, -1) {
		if !strings.Contains(tag, " src=") {
			t.Fatalf("inline script %s", tag)
		}
	}
	if m := regexp.MustCompile(`(?i)\son[a-z]+\s*=`).FindString(page); m != "" {
		t.Fatalf("inline handler %q in the page", m)
	}
	for name, a := range s.console.assets {
		if strings.HasSuffix(name, ".js") && regexp.MustCompile(`\binnerHTML\b|\beval\(|document\.write`).Match(a.body) {
			t.Fatalf("%s builds markup from strings", name)
		}
	}
}

func TestConsole_HostPinAndOriginCheckApply(t *testing.T) {
	s := csStart(t, csOptions{})
	b := s.browser(t)
	r, _ := http.NewRequest(http.MethodGet, s.URL()+"/ui/", nil)
	r.Host = "evil.example"
	resp, err := b.hc.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign Host: %d", resp.StatusCode)
	}
	got := b.do(http.MethodPost, "/ui/api/signin", `{"token": "`+nodetest.SharedToken+`"}`, map[string]string{"Origin": "https://evil.example"})
	if got.Status != http.StatusForbidden || sessionCookieOf(t, s, got) != nil {
		t.Fatalf("foreign Origin: %d", got.Status)
	}
	if got := b.do(http.MethodPost, "/ui/api/signin", `{"token": "`+nodetest.SharedToken+`"}`, map[string]string{"Origin": s.URL()}); got.Status != http.StatusOK {
		t.Fatalf("own Origin: %d %s", got.Status, got.Body)
	}
}

func TestConsole_IdleExpiry(t *testing.T) {
	s := csStart(t, csOptions{})
	idle, busy := s.browser(t), s.browser(t)
	idle.mustSignIn(nodetest.SharedToken)
	busy.mustSignIn(nodetest.SharedToken)
	background := map[string]string{backgroundHeader: "1"}
	s.wall.Advance(20 * time.Minute)
	if resp := idle.do(http.MethodGet, "/ui/api/mesh", "", background); resp.Status != http.StatusOK {
		t.Fatalf("background poll at 20 min: %d", resp.Status)
	}
	if resp := busy.get("/ui/api/agents"); resp.Status != http.StatusOK {
		t.Fatalf("request at 20 min: %d", resp.Status)
	}
	s.wall.Advance(consoleIdle - 20*time.Minute + time.Second)
	if resp := idle.do(http.MethodGet, "/ui/api/mesh", "", background); resp.Status != http.StatusUnauthorized || !strings.Contains(resp.Body, "expired") {
		t.Fatalf("a session only polled for %v: %d %s; want 401 expired", consoleIdle, resp.Status, resp.Body)
	}
	if resp := busy.get("/ui/api/agents"); resp.Status != http.StatusOK {
		t.Fatalf("a session used 10 min ago: %d %s", resp.Status, resp.Body)
	}
	if resp := idle.get("/ui/api/session"); decode[sessionInfo](t, resp).SignedIn {
		t.Fatal("the expired session is signed in again")
	}
}

func TestConsole_SignOutEndsSession(t *testing.T) {
	s := csStart(t, csOptions{})
	b := s.browser(t)
	b.mustSignIn(nodetest.SharedToken)
	resp := b.do(http.MethodPost, "/ui/api/signout", "{}", nil)
	if c := sessionCookieOf(t, s, resp); resp.Status != http.StatusOK || c == nil || c.MaxAge >= 0 {
		t.Fatalf("sign-out: %d %v", resp.Status, resp.Header["Set-Cookie"])
	}
	if got := b.get("/ui/api/agents"); got.Status != http.StatusUnauthorized {
		t.Fatalf("after sign-out: %d", got.Status)
	}
	if n := len(s.console.sessions.byID); n != 0 {
		t.Fatalf("%d sessions left", n)
	}
}

func TestConsole_NotMountedIsNotFound(t *testing.T) {
	ts := htStart(t, nil)
	if got, _ := nodetest.Status(t, ts, nodetest.Req{Path: "/ui/"}); got != http.StatusNotFound {
		t.Fatalf("/ui/ without the console: %d", got)
	}
}

func TestConsole_PageWeight(t *testing.T) {
	const budget = 200 << 10
	total := 0
	for name, a := range consoleAssets() {
		if name != "" { // the page is also served as "", once
			total += len(a.body)
		}
	}
	t.Logf("console assets: %d bytes", total)
	if total > budget {
		t.Fatalf("the console's files weigh %d bytes, over the %d-byte budget", total, budget)
	}
}
