package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/store"
)

// The web console (docs/operations.md "Console") is served at /ui/: the
// page and its assets, embedded in the binary (console_assets.go), and
// its JSON API under /ui/api/. The browser signs in with a token and
// holds only a session cookie (console_session.go); every API route
// reads through the same store calls and read scopes as the other routes
// and writes through the MCP tools, so the console can show or do
// nothing that the token could not with its bearer. The console runs
// nothing in the background: with nobody signed in it costs a prefix
// check of GET and POST paths other than /mcp.

// DefaultConsoleIdleTimeout is how long a console session lives without
// a request made by its user.
const DefaultConsoleIdleTimeout = 30 * time.Minute

// ConsoleLog is what the console reads beyond Log; *store.Store
// implements it.
type ConsoleLog interface {
	Log
	OwedIn(ctx context.Context, scope *store.ReadScope, agent, stream string, limit int) ([]store.Event, error)
	EventVisible(ctx context.Context, scope *store.ReadScope, id string) (bool, error)
	ArtifactVisible(ctx context.Context, scope *store.ReadScope, id string) (bool, error)
	Quarantine(ctx context.Context, limit int) ([]store.QuarantineEntry, error)
	QuarantineReasons(ctx context.Context) (map[string]int64, error)
	Streams(ctx context.Context, scope *store.ReadScope, limit int) ([]store.StreamInfo, bool, error)
	RecentAgents(ctx context.Context, window time.Duration, n int) ([]store.AgentInfo, int, error)
}

var _ ConsoleLog = (*store.Store)(nil)

// ToolCaller runs an MCP tool in process with the identity of ctx
// (node/mcp's Handler.CallTool): the console's compose form writes
// through it, so a write from the browser passes every check a
// tools/call passes. An error that has an RPCCode method is the JSON-RPC
// refusal a tools/call would have answered.
type ToolCaller interface {
	CallTool(ctx context.Context, name string, args json.RawMessage) ([]byte, error)
}

// ConsoleOptions configure the console (EnableConsole).
type ConsoleOptions struct {
	// Store is the log the console reads. Required.
	Store ConsoleLog
	// Tools writes the events the compose form sends. Required.
	Tools ToolCaller
	// IdleTimeout ends a session that made no request of its user's for
	// this long. Default DefaultConsoleIdleTimeout.
	IdleTimeout time.Duration
	// Random is the source of session ids and CSRF tokens; nil is
	// crypto/rand (tests inject their own).
	Random io.Reader
}

// console serves /ui/.
type console struct {
	s        *Server
	store    ConsoleLog
	tools    ToolCaller
	sessions *sessionTable
	history  *lagHistory
	assets   map[string]consoleAsset
	routes   map[string]consoleRoute
}

// consoleRoute is one route of the console's API.
type consoleRoute struct {
	method string
	// public routes need no session: the page, its assets, the session
	// probe and sign-in.
	public bool
	// admin routes need an admin token or the shared one (the mesh and
	// the agent roster's other agents, as for /statusz and /sync/*).
	admin bool
	// stream routes are long-lived (excluded from the duration
	// histogram) and do not keep their session alive.
	stream bool
	h      func(w http.ResponseWriter, r *http.Request, sess *consoleSession)
}

// EnableConsole mounts the console at /ui/ on the surface; call it before
// Handler.
func (s *Server) EnableConsole(o ConsoleOptions) {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultConsoleIdleTimeout
	}
	c := &console{s: s, store: o.Store, tools: o.Tools, history: newLagHistory(s.wall), assets: consoleAssets()}
	c.sessions = newSessionTable(s.cfg.Port, s.wall, o.IdleTimeout, o.Random)
	c.routes = map[string]consoleRoute{
		"/ui/api/session": {method: http.MethodGet, public: true, h: c.handleSession},
		"/ui/api/signin":  {method: http.MethodPost, public: true, h: c.handleSignIn},
		"/ui/api/signout": {method: http.MethodPost, h: c.handleSignOut},
		"/ui/api/mesh":    {method: http.MethodGet, admin: true, h: c.handleMesh},
		"/ui/api/agents":  {method: http.MethodGet, h: c.handleAgents},
		"/ui/api/agent":   {method: http.MethodGet, h: c.handleAgent},
		"/ui/api/streams": {method: http.MethodGet, h: c.handleStreams},
		"/ui/api/events":  {method: http.MethodGet, h: c.handleEventPage},
		"/ui/api/thread":  {method: http.MethodGet, h: c.handleThread},
		"/ui/api/tail":    {method: http.MethodGet, stream: true, h: c.handleTail},
		"/ui/api/compose": {method: http.MethodPost, h: c.handleCompose},
	}
	s.console = c
}

// isConsolePath reports whether path belongs to the console.
func isConsolePath(path string) bool {
	return path == "/ui" || strings.HasPrefix(path, "/ui/")
}

// route is the routing table entry of a console request. Every one runs
// through the surface's policy (Host pin, Origin check) with no bearer
// required: the console authenticates by its session cookie.
func (c *console) route(r *http.Request) route {
	path := r.URL.Path
	if !strings.HasPrefix(path, "/ui/api/") {
		return route{name: "/ui/", h: c.serveAsset}
	}
	cr, ok := c.routes[path]
	if !ok {
		return route{name: "/ui/api/other", h: func(w http.ResponseWriter, _ *http.Request) {
			consoleHeaders(w)
			writeConsoleError(w, http.StatusNotFound, "no such console route")
		}}
	}
	return route{name: path, stream: cr.stream, h: func(w http.ResponseWriter, r *http.Request) { c.serveAPI(w, r, cr) }}
}

// serveAPI runs one API request: method, session, CSRF token and admin
// checks, then the route with the session's identity on the context.
func (c *console) serveAPI(w http.ResponseWriter, r *http.Request, cr consoleRoute) {
	consoleHeaders(w)
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != cr.method {
		w.Header().Set("Allow", cr.method)
		writeConsoleError(w, http.StatusMethodNotAllowed, "this console route takes "+cr.method)
		return
	}
	if r.Method == http.MethodPost && !isJSONRequest(r) {
		// A cross-site form cannot send JSON without a CORS preflight,
		// which this origin never grants.
		writeConsoleError(w, http.StatusUnsupportedMediaType, "console requests are JSON (Content-Type: application/json)")
		return
	}
	if cr.public {
		cr.h(w, r, nil)
		return
	}
	sess, id, code, msg := c.sessions.authenticate(r, c.s.policy.auth, !cr.stream && !isBackground(r))
	if code != 0 {
		writeConsoleError(w, code, msg)
		return
	}
	if r.Method == http.MethodPost && !sess.csrfMatches(r.Header.Get(csrfHeader)) {
		c.s.log.Warn("console request refused: CSRF token missing or wrong", "path", r.URL.Path, "token_name", id.Name())
		writeConsoleError(w, http.StatusForbidden, "CSRF token missing or wrong: reload the console")
		return
	}
	if cr.admin && id.Scoped() {
		writeConsoleError(w, http.StatusForbidden, "this view needs an admin token (the shared token or \"admin\": true in the tokens file); "+id.Label()+" is an agent token")
		return
	}
	// With a token configured every session has an identity, which
	// replaces whatever the request's own headers would give; without one
	// the policy's identity is nil (full access), as the session's.
	cr.h(w, r.WithContext(auth.WithIdentity(r.Context(), id)), sess)
}

// backgroundHeader marks a request the page makes by itself (a refresh
// poll): it is served but does not keep the session alive, so a console
// left open still signs out after the idle timeout.
const backgroundHeader = "X-Console-Background"

func isBackground(r *http.Request) bool { return r.Header.Get(backgroundHeader) != "" }

func isJSONRequest(r *http.Request) bool {
	ct := strings.ToLower(strings.TrimSpace(strings.SplitN(r.Header.Get("Content-Type"), ";", 2)[0]))
	return ct == "application/json"
}

// consoleCSP is the console's Content-Security-Policy: scripts, styles
// and connections only from this origin, no inline script or handler, no
// framing.
const consoleCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// consoleHeaders sets the security headers of every console response.
func consoleHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", consoleCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// writeConsoleJSON writes v (encoding/json) as the console API's answer.
func writeConsoleJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"internal error: response not encodable"}`)
	}
	writeBody(w, status, contentJSON, body)
}

// writeConsoleError writes {"error": msg}.
func writeConsoleError(w http.ResponseWriter, status int, msg string) {
	writeConsoleJSON(w, status, map[string]string{"error": msg})
}

// writeStoreError answers a store error with the status and text
// errorStatus gives it, logging unexpected ones.
func (c *console) writeStoreError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := errorStatus(err)
	if status == http.StatusInternalServerError {
		c.s.log.Error("console request failed", "path", r.URL.Path, "err", err)
	}
	writeConsoleError(w, status, msg)
}
