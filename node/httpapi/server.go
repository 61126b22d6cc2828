package httpapi

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/node/auth"
)

// Server is the node's HTTP surface: routing, the request policy, the
// read routes, and the mount point of POST /mcp. Build it with New, then
// serve Handler with the settings of NewHTTPServer.
type Server struct {
	cfg     Options
	store   Log
	wall    hlc.WallClock
	drain   context.Context // cancelled when shutdown begins
	log     *slog.Logger
	metrics *httpMetrics
	policy  *policy
	stats   *requestStats
	sse     *sseSlots
	frames  sseFrames // events rendered for SSE, shared by the streams
	// clientStreams and clientWaits are the per-client caps of streams and
	// of long polls (client_limits.go).
	clientStreams, clientWaits *ClientSlots
	// console serves /ui/ once EnableConsole mounted it; nil: no console.
	console *console

	name    string // host name reported by /sync/peers
	started time.Time
	// backupBusy is set while GET /lsnode/backup runs (backup_route.go).
	backupBusy atomic.Bool
}

// New builds the surface of cfg and registers its collectors on
// cfg.Registry; it serves nothing until Handler is served.
func New(cfg Options) *Server {
	m := newHTTPMetrics(cfg.Registry)
	name, _ := os.Hostname()
	drain := cfg.Drain
	if drain == nil {
		drain = context.Background()
	}
	return &Server{
		cfg: cfg, store: cfg.Store, wall: cfg.Wall, drain: drain, log: cfg.Logger.With("component", "http"),
		metrics: m, stats: newRequestStats(),
		policy:        newPolicy(cfg.BindHost, cfg.Port, cfg.ExtraAllowedHosts, cfg.Auth),
		sse:           &sseSlots{max: cfg.SSEMaxClients, gauge: m.sseClients},
		clientStreams: newClientSlots("streams", cfg.MaxStreamsPerClient, m.clientRefused),
		clientWaits:   newClientSlots("waits", cfg.MaxWaitsPerClient, m.clientRefused),
		name:          name,
		started:       cfg.Wall.Now(),
	}
}

// Waits is the per-client cap of concurrent long polls, which the MCP
// handler shares for mempalace_event_wait.
func (s *Server) Waits() *ClientSlots { return s.clientWaits }

// OpenStreams is the number of open /logstream/stream connections.
func (s *Server) OpenStreams() int { return s.sse.active() }

// route is one entry of the routing table.
type route struct {
	name   string // metrics label: the path, or a fixed fallback name
	auth   bool   // requires the bearer token (when one is configured)
	scoped bool   // open to agent tokens, whose identity the handler applies; other auth routes need an admin token
	stream bool   // long-lived: excluded from the duration histogram
	// own marks lsnode's own routes (not the Python hub's): params are the
	// query parameters it takes, and a request naming any other gets 400;
	// its refusals are JSON, never the hub's HTML error pages. The hub's
	// routes read their query as the hub does and keep its pages
	// (docs/compatibility.md#http-behaviour).
	own    bool
	params []string
	// anyQuery skips the parameter check of an own route that only
	// refuses (own_refusals.go): its refusal names the method or the
	// path, whatever the query.
	anyQuery bool
	h        http.HandlerFunc
}

// getRoutes returns the table of GET routes by path.
func (s *Server) getRoutes() map[string]route {
	return map[string]route{
		"/healthz":             {name: "/healthz", h: s.handleHealthz},
		"/readyz":              {name: "/readyz", own: true, params: readyParams, h: s.handleReadyz},
		"/lsnode/agents":       {name: "/lsnode/agents", auth: true, own: true, params: []string{"window"}, h: s.handleAgents},
		"/lsnode/keys":         {name: "/lsnode/keys", auth: true, own: true, h: s.handleKeys},
		"/lsnode/backup":       {name: "/lsnode/backup", auth: true, own: true, params: []string{"node_key"}, h: s.handleBackup},
		"/statusz":             {name: "/statusz", auth: true, h: s.handleStatusz},
		"/metrics":             {name: "/metrics", auth: true, h: metricsHandler(s.cfg.Registry).ServeHTTP},
		"/logstream/stream":    {name: "/logstream/stream", auth: true, scoped: true, stream: true, h: s.handleStream},
		"/logstream/events":    {name: "/logstream/events", auth: true, scoped: true, stream: true, own: true, params: eventsParams, h: s.handleEvents},
		"/lsnode/awaiting":     {name: "/lsnode/awaiting", auth: true, scoped: true, own: true, params: awaitingParams, h: s.handleAwaiting},
		"/logstream/search":    {name: "/logstream/search", auth: true, scoped: true, own: true, params: searchParams, h: s.handleSearch},
		"/lsnode/cycles":       {name: "/lsnode/cycles", auth: true, scoped: true, own: true, params: cyclesParams, h: s.handleCycles},
		"/sync/version_vector": {name: "/sync/version_vector", auth: true, h: s.handleVersionVector},
		"/sync/ops":            {name: "/sync/ops", auth: true, h: s.handleOps},
		"/sync/artifact":       {name: "/sync/artifact", auth: true, h: s.handleArtifact},
		"/sync/peers":          {name: "/sync/peers", auth: true, h: s.handlePeers},
	}
}

// postRoutes returns the table of POST routes by path; POST /mcp is the
// MCP handler's, which Handler mounts.
func (s *Server) postRoutes() map[string]route {
	return map[string]route{
		"/lsnode/keys": {name: "/lsnode/keys", auth: true, own: true, h: s.handleKeys},
	}
}

// routes is the routing table Handler builds once.
type routes struct {
	get, post map[string]route
	mcp       route
	// allow holds the methods each own path takes, for the Allow header
	// of a 405 (own_refusals.go).
	allow map[string]string
}

// Handler returns the root handler, with mcp (node/mcp, which reads,
// caps and answers the body, and widens the write deadline for its long
// waits) mounted at POST /mcp: route lookup, then per request the policy
// (Host, Origin, bearer), panic recovery, metrics and statistics.
func (s *Server) Handler(mcp http.Handler) http.Handler {
	rs := routes{get: s.getRoutes(), post: s.postRoutes(),
		mcp: route{name: mcpRouteName, auth: true, scoped: true, stream: true, h: mcp.ServeHTTP}}
	rs.allow = ownMethods(rs.get, rs.post)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, s.lookup(rs, r))
	})
}

// lookup picks the route of r. A path of lsnode's own that does not take
// the method, and an unknown path under /lsnode/, get JSON refusals
// (ownRefusal); anything else unknown gets the fallback that answers as
// the Python hub does: unknown GET paths are Host/Origin-checked then
// 404, unknown /sync/ paths and POSTs are also bearer-checked, other
// methods get 501. GET and DELETE on /mcp are the MCP handler's, which
// answers them 405 as the streamable HTTP transport asks of a server
// without a GET stream or sessions (docs/compatibility.md, "MCP client
// eras").
func (s *Server) lookup(rs routes, r *http.Request) route {
	path := r.URL.Path
	if path == "/mcp" && (r.Method == http.MethodGet || r.Method == http.MethodDelete) {
		return rs.mcp
	}
	switch r.Method {
	case http.MethodGet:
		if rt, ok := rs.get[path]; ok {
			return rt
		}
		if strings.HasPrefix(path, pprofPrefix) {
			return pprofRoute
		}
		if s.console != nil && isConsolePath(path) {
			return s.console.route(r)
		}
	case http.MethodPost:
		if path == "/mcp" {
			return rs.mcp
		}
		if rt, ok := rs.post[path]; ok {
			return rt
		}
		if s.console != nil && isConsolePath(path) {
			return s.console.route(r)
		}
	}
	if rt, ok := rs.ownRefusal(path); ok {
		return rt
	}
	return hubFallback(r)
}

// hubFallback is the route of a request no route takes, answered as the
// Python hub answers it.
func hubFallback(r *http.Request) route {
	switch r.Method {
	case http.MethodGet:
		if strings.HasPrefix(r.URL.Path, "/sync/") {
			return route{name: "/sync/other", auth: true, scoped: true, h: notFound}
		}
		return route{name: "other", h: notFound}
	case http.MethodPost:
		return route{name: "other", auth: true, scoped: true, h: notFound}
	}
	return route{name: "other", h: func(w http.ResponseWriter, r *http.Request) {
		writeErrorPage(w, http.StatusNotImplemented, fmt.Sprintf("Unsupported method (%s)", pyQuote(r.Method)))
	}}
}

func notFound(w http.ResponseWriter, _ *http.Request) {
	writeErrorPage(w, http.StatusNotFound, "Not Found")
}

// pyQuote quotes a method name as Python's %r does for plain ASCII.
func pyQuote(s string) string { return "'" + s + "'" }

// serve runs one request through the policy and its route.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, rt route) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	sw.onHeader = func(code int) {
		s.stats.record(r, code, s.policy.authenticated(r), s.wall.Now())
	}
	defer func() {
		if p := recover(); p != nil {
			s.recovered(sw, r, p)
		}
		elapsed := time.Since(start)
		if rt.stream {
			elapsed = 0
		}
		s.metrics.observe(rt.name, sw.code(), elapsed)
	}()
	code, id := s.policy.check(r, rt.auth)
	if code != 0 {
		s.log.Warn("request rejected", "status", code, "path", r.URL.Path, "host", r.Host, "origin", r.Header.Get("Origin"))
		if rt.name == mcpRouteName && code == http.StatusUnauthorized {
			writeMCPUnauthorized(sw)
			return
		}
		if rt.own {
			writeJSON(sw, code, syncwire.ErrorAnswer(http.StatusText(code)))
		} else {
			writeErrorPage(sw, code, http.StatusText(code))
		}
		return
	}
	if rt.own && !rt.anyQuery {
		if err := onlyParams(r.URL.RawQuery, rt.params); err != nil {
			writeError(sw, r, s.log, err)
			return
		}
	}
	if rt.auth && !rt.scoped && id.Scoped() {
		refuseScoped(sw, r, s.log, id)
		return
	}
	rt.h(sw, r.WithContext(auth.WithIdentity(r.Context(), id)))
}

// recovered answers a panicking handler with a 500 JSON error when
// nothing was sent yet, and otherwise aborts the connection; either way
// the panic is logged, never lost with the connection.
func (s *Server) recovered(sw *statusWriter, r *http.Request, p any) {
	if p == http.ErrAbortHandler {
		panic(p)
	}
	s.log.Error("handler panic", "method", r.Method, "path", r.URL.Path, "panic", p)
	if sw.wrote {
		panic(http.ErrAbortHandler)
	}
	writeJSON(sw, http.StatusInternalServerError, syncwire.ErrorAnswer("internal error"))
}

// NewHTTPServer wraps h (a Server's Handler) in a server with the
// bounded timeouts and header size of cfg. SSE and long polls lift their
// own write deadline; the read deadline covers only reading the request
// (net/http lifts it once the body is read), so it never cuts a stream.
func NewHTTPServer(cfg Options, h http.Handler, tlsCfg *tls.Config) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		TLSConfig:         tlsCfg,
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
	}
}

// statusWriter records the status of a response and reports it once, when
// the header is written. It passes Flush and the ResponseController
// methods through.
type statusWriter struct {
	http.ResponseWriter
	status   int
	wrote    bool
	onHeader func(code int)
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote, w.status = true, code
		w.onHeader(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush sends buffered data to the client.
func (w *statusWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// code is the status sent, 200 if the handler wrote nothing at all.
func (w *statusWriter) code() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.status
}
