package node

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/store"
)

// MCPStore is the part of the log the MCP tools use; *store.Store
// implements it.
type MCPStore interface {
	Append(ctx context.Context, in store.AppendInput) (store.Written, error)
	Ack(ctx context.Context, in store.AckInput) (store.Written, error)
	PutArtifact(ctx context.Context, in store.ArtifactInput) (store.Written, error)
	PatchSubmit(ctx context.Context, in store.PatchInput) (store.Written, error)
	TaskCreate(ctx context.Context, in store.TaskInput) (store.Written, string, error)
	GetArtifact(ctx context.Context, id string) (store.Artifact, error)
	EventSeq(ctx context.Context, id string) (int64, error)
	List(ctx context.Context, f store.Filter) (store.ListResult, error)
	Wait(ctx context.Context, f store.Filter, timeout time.Duration) (store.ListResult, bool, error)
	OwedIn(ctx context.Context, scope *store.ReadScope, agent, stream string, limit int) ([]store.Event, error)
	EventVisible(ctx context.Context, scope *store.ReadScope, id string) (bool, error)
	ArtifactVisible(ctx context.Context, scope *store.ReadScope, id string) (bool, error)
}

var _ MCPStore = (*store.Store)(nil)

// MCPOptions configure NewMCPHandler.
type MCPOptions struct {
	// Store is the log the tools read and write. Required.
	Store MCPStore
	// ReadOnly hides the writers from tools/list and refuses them with
	// the hub's -32003 error.
	ReadOnly bool
	// Roster returns mempalace_mesh_peers' payload (the /sync/peers
	// answer, any pyjson value). nil: the tool reports it unavailable.
	Roster func(ctx context.Context) (any, error)
	// Drain, when cancelled, ends every event_wait early with a timed-out
	// answer (node shutdown). nil never drains.
	Drain context.Context
	// MaxWait bounds an event_wait: a longer timeout_ms times out at
	// MaxWait. 0 keeps the hub's clamp of 300 s.
	MaxWait time.Duration
	// WriteTimeout bounds writing an answer: once the body is read, the
	// connection's write deadline becomes MaxWait + WriteTimeout away, so
	// that the longest event_wait can answer (mcpMount).
	WriteTimeout time.Duration
	// Waits caps the concurrent event_waits of one client (429 with
	// Retry-After and a JSON-RPC error beyond it, mcpMount).
	Waits WaitSlots
	// Version is serverInfo.version in the initialize answer. Default "dev".
	Version string
	// MaxRequestBytes bounds a request body. Default 16 MiB, the hub's
	// limit; the HTTP layer answers 413 above it before this handler runs.
	MaxRequestBytes int64
	// Logger receives internal tool failures; nil discards.
	Logger *slog.Logger
	// RequireIdentity refuses (as an internal error) a call whose context
	// carries no caller identity: the node sets it when agent tokens are
	// configured, so a dispatch path that lost the request's identity
	// fails closed instead of granting full access.
	RequireIdentity bool
	// Metrics is where lsnode_mcp_calls_total and
	// lsnode_mcp_call_duration_seconds are registered; nil registers none.
	Metrics prometheus.Registerer
}

// protocolVersions are the MCP versions the Python hub negotiates, newest
// first: a client's version in the list is echoed, any other gets the
// first.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// defaultMCPRequestBytes is the hub's request size limit (16 MiB).
const defaultMCPRequestBytes = 16 << 20

// NewMCPHandler returns the handler of POST /mcp: the MCP tools over
// streamable HTTP (official Go SDK, stateless, JSON responses) behind a
// thin layer that keeps the Python hub's JSON-RPC behaviour where clients
// see it (mcp_compat.go). The server calls itself "mempalace", as the hub
// does, because clients may check the name. Authentication, the Host pin
// and the 413 answer belong to the HTTP layer in front of it.
//
// The tools are the hub's, with its names, inputs, envelopes and texts
// (mempalace-wire.md §2), plus these lsnode additions, which old clients
// never see unless they ask:
//   - idempotency_key on every writer; a retry answers the original result
//     with "duplicate": true;
//   - "warnings" on event_append, patch_submit, event_ack and task_create
//     when the writer's name is also writing through another replica;
//   - "cursor" in list and wait answers, accepted back by both: a portable
//     resume token valid on any node;
//   - writer on list and wait (the newest hub's semantics: from_agent is
//     the caller's identity and only adds a "note");
//   - mempalace_event_owed {agent, stream, limit} -> {events, count}.
func NewMCPHandler(opts MCPOptions) http.Handler {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = defaultMCPRequestBytes
	}
	tools := &mcpTools{
		log: opts.Store, roster: opts.Roster, readOnly: opts.ReadOnly, drain: opts.Drain, requireIdentity: opts.RequireIdentity,
		maxWait: opts.MaxWait, logger: logger.With("component", "mcp"), metrics: newMCPMetrics(opts.Metrics),
	}
	// The SDK logs every stateless request's session start and end at
	// INFO; only its warnings and errors reach the node's log.
	sdkLogger := slog.New(minLevel{Handler: logger.Handler(), min: slog.LevelWarn})
	server := mcp.NewServer(&mcp.Implementation{Name: "mempalace", Version: opts.Version}, &mcp.ServerOptions{
		Logger:                    sdkLogger,
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		SupportedProtocolVersions: protocolVersions,
	})
	specs := map[string]*toolSpec{}
	for _, spec := range catalog() {
		specs[spec.name] = spec
		server.AddTool(spec.tool(), tools.handler(spec))
	}
	if opts.ReadOnly {
		server.AddReceivingMiddleware(hideWriters(specs))
	}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              sdkLogger,
		MaxRequestBodyBytes: opts.MaxRequestBytes,
		// The node's Host pin (with its configured extra hosts) is the
		// policy; the SDK's own loopback check would refuse a proxy's Host.
		DisableLocalhostProtection: true,
	})
	fast := &fastPath{tools: tools, specs: specs, versions: protocolVersions}
	return &mcpCompat{next: sdk, tools: specs, fast: fast, maxBody: opts.MaxRequestBytes}
}

// hideWriters drops the writers from tools/list, as a read-only hub does.
func hideWriters(specs map[string]*toolSpec) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if list, ok := res.(*mcp.ListToolsResult); ok {
				list.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool {
					return specs[t.Name].writer
				})
			}
			return res, err
		}
	}
}

// minLevel passes on only records at or above min.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (h minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevel{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

func (h minLevel) WithGroup(name string) slog.Handler {
	return minLevel{Handler: h.Handler.WithGroup(name), min: h.min}
}
