package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/node/mcp"
	"github.com/lsnode/lsnode/store"
)

// consoleIdle is the idle timeout of the console tests' sessions.
const consoleIdle = 30 * time.Minute

// consoleServer is a surface serving the console over a store of its
// own, with the shared token and the tokens file of nodetest (pi's agent
// token, ops' admin token), on a manual wall clock.
type consoleServer struct {
	*testServer
	wall *hlc.ManualClock
}

// csOptions adjust a console test's surface.
type csOptions struct {
	scheme string                        // "" is http
	store  func(*store.Store) ConsoleLog // wraps the store the console reads; nil reads it as it is
}

func csStart(t *testing.T, o csOptions) *consoleServer {
	t.Helper()
	tokens, err := auth.OpenTokens(nodetest.WriteTokensFile(t, nodetest.TokensFile), nodetest.SharedToken)
	if err != nil {
		t.Fatal(err)
	}
	wall := hlc.NewManualClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	ts := htStartWith(t, func(c *Options) {
		c.Auth = auth.NewAuthenticator(nodetest.SharedToken, tokens)
		c.Wall = wall
		if o.scheme != "" {
			c.Scheme = o.scheme
		}
	}, func(ts *testServer) {
		var st ConsoleLog = ts.store
		if o.store != nil {
			st = o.store(ts.store)
		}
		tools := mcp.NewHandler(mcp.Options{Store: ts.store, RequireIdentity: true})
		ts.EnableConsole(ConsoleOptions{Store: st, Tools: tools, IdleTimeout: consoleIdle})
	})
	return &consoleServer{testServer: ts, wall: wall}
}

// browser is a console client with its own cookie jar, as one browser.
type browser struct {
	t    *testing.T
	s    *consoleServer
	hc   *http.Client
	csrf string
}

func (s *consoleServer) browser(t *testing.T) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, s: s, hc: &http.Client{Jar: jar, Timeout: 10 * time.Second}}
}

// do sends one request; POSTs are JSON and carry the session's CSRF
// token unless header sets X-CSRF-Token itself ("" sends none).
func (b *browser) do(method, path, body string, header map[string]string) nodetest.Resp {
	b.t.Helper()
	r, err := http.NewRequest(method, b.s.URL()+path, strings.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	if method == http.MethodPost {
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(csrfHeader, b.csrf)
	}
	for k, v := range header {
		if v == "" {
			r.Header.Del(k)
			continue
		}
		r.Header.Set(k, v)
	}
	resp, err := b.hc.Do(r)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return nodetest.Resp{Status: resp.StatusCode, Header: resp.Header, Body: string(raw)}
}

func (b *browser) get(path string) nodetest.Resp {
	b.t.Helper()
	return b.do(http.MethodGet, path, "", nil)
}

// signIn signs in with token and keeps the CSRF token; it returns the
// answer.
func (b *browser) signIn(token string) nodetest.Resp {
	b.t.Helper()
	body, _ := json.Marshal(map[string]string{"token": token})
	resp := b.do(http.MethodPost, "/ui/api/signin", string(body), nil)
	if resp.Status == http.StatusOK {
		b.csrf = nodetest.JSON(b.t, resp)["csrf_token"].(string)
	}
	return resp
}

// mustSignIn signs in and fails the test unless it worked.
func (b *browser) mustSignIn(token string) {
	b.t.Helper()
	if resp := b.signIn(token); resp.Status != http.StatusOK {
		b.t.Fatalf("sign in: %d %s", resp.Status, resp.Body)
	}
}

// compose writes through the compose route.
func (b *browser) compose(tool string, args map[string]any, header map[string]string) nodetest.Resp {
	b.t.Helper()
	body, _ := json.Marshal(map[string]any{"tool": tool, "arguments": args})
	return b.do(http.MethodPost, "/ui/api/compose", string(body), header)
}

// decode decodes a JSON answer into v.
func decode[T any](t *testing.T, r nodetest.Resp) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.Body), &v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, r.Body)
	}
	return v
}

// eventCount is how many events the store holds.
func eventCount(t *testing.T, st *store.Store) int {
	t.Helper()
	page, err := st.List(context.Background(), store.Filter{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Events)
}

// ask is an open ask from one agent to another in a thread.
func ask(from, to, stream, thread string) store.AppendInput {
	return store.AppendInput{Type: "task.request", Stream: stream, Room: "review", FromAgent: from, ToAgent: to,
		CorrelationID: thread, Status: "open", Body: from + " asks " + to}
}
