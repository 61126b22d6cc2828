package mcp

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/store"
)

// Store is the part of the log the MCP tools use; *store.Store
// implements it.
type Store interface {
	Append(ctx context.Context, in store.AppendInput) (store.Written, error)
	Ack(ctx context.Context, in store.AckInput) (store.Written, error)
	PutArtifact(ctx context.Context, in store.ArtifactInput) (store.Written, error)
	PatchSubmit(ctx context.Context, in store.PatchInput) (store.Written, error)
	TaskCreate(ctx context.Context, in store.TaskInput) (store.Written, string, error)
	GetArtifact(ctx context.Context, id string) (store.Artifact, error)
	EventSeq(ctx context.Context, id string) (int64, error)
	List(ctx context.Context, f store.Filter) (store.ListResult, error)
	Wait(ctx context.Context, f store.Filter, timeout time.Duration) (store.ListResult, bool, error)
	OwedAsks(ctx context.Context, scope *store.ReadScope, agent, stream string, limit int) ([]store.Ask, error)
	Awaiting(ctx context.Context, q store.AwaitingQuery) ([]store.Awaited, error)
	Search(ctx context.Context, q store.SearchQuery) (store.SearchResult, error)
	EventVisible(ctx context.Context, scope *store.ReadScope, id string) (bool, error)
	ArtifactVisible(ctx context.Context, scope *store.ReadScope, id string) (bool, error)
}

var _ Store = (*store.Store)(nil)

// WaitSlots caps the concurrent mempalace_event_waits of one client; the
// HTTP surface's per-client cap of long polls (httpapi.ClientSlots) is
// one, shared with /logstream/events.
type WaitSlots interface {
	// Acquire takes a slot for r's client; false means it is at its cap.
	Acquire(r *http.Request) bool
	// Release returns the slot Acquire took for r.
	Release(r *http.Request)
	// Refusal is the text of a refusal and its Retry-After, in seconds.
	Refusal() (text, retryAfter string)
}

// Options configure NewHandler: the operator's Config and the parts the
// tools use.
type Options struct {
	Config

	// Store is the log the tools read and write. Required.
	Store Store
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
	// connection's write deadline is set MaxWait + WriteTimeout away, so
	// that the longest event_wait can still answer. 0 leaves the deadline
	// as the server set it.
	WriteTimeout time.Duration
	// Waits caps the concurrent event_waits of one client: one more gets
	// 429 with Retry-After and a JSON-RPC error. nil caps none.
	Waits WaitSlots
	// Version is serverInfo.version in the initialize answer. Default "dev".
	Version string
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
	// ProgressEvery is how often an event_wait answered as a stream
	// reports progress (progress.go). Default 10 s.
	ProgressEvery time.Duration
}

// Handler serves POST /mcp: the MCP tools, with the Python hub's JSON-RPC
// behaviour wherever clients see it. The server calls itself "mempalace",
// as the hub does, because clients may check the name. Authentication and
// the Host pin belong to the HTTP surface in front of it (node/httpapi).
//
// The tools are the hub's, with its names, inputs, envelopes and texts
// (docs/compatibility.md#tools), plus these lsnode additions, which old clients
// never see unless they ask:
//   - idempotency_key on every writer; a retry answers the original result
//     with "duplicate": true;
//   - "warnings" on event_append, patch_submit, event_ack and task_create
//     when the writer's name is also writing through another replica;
//   - "cursor" in list and wait answers, accepted back by both: a portable
//     resume token valid on any node;
//   - writer on list and wait (the newest hub's semantics: from_agent is
//     the caller's identity and only adds a "note");
//   - mempalace_event_owed {agent, stream, limit} -> {events, count},
//     each event with its claim (claimed_by, claimed_from,
//     claim_conflict) and the thread's status;
//   - mempalace_event_awaiting {agent, stream, older_than, limit} -> {asks, count};
//   - mempalace_event_search {query, stream, room, type, from_agent,
//     to_agent, order, cursor, limit} -> {events, count, cursor}.
type Handler struct {
	tools *toolSet
	specs map[string]*toolSpec
	// sdk is the official Go SDK's streamable HTTP handler (stateless,
	// JSON responses) over a server with the same tools (sdk.go);
	// sdkStream the same with event-stream responses, for the waits that
	// report progress every progressEvery (progress.go).
	sdk, sdkStream http.Handler
	progressEvery  time.Duration
	// native answers plain calls and pings without the SDK (native.go);
	// the tests turn it off to hold both paths to the same bytes.
	native bool
	// serverMeta is the _meta of the sessionless protocol's results: the
	// server's identity (serverMeta).
	serverMeta []byte
	maxBody    int64
	waits      WaitSlots
	// deadline is how far the write deadline is set once the body is
	// read (MaxWait + WriteTimeout); 0 leaves it.
	deadline time.Duration
}

// NewHandler returns the handler of POST /mcp.
func NewHandler(opts Options) *Handler {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = defaultProgressEvery
	}
	tools := &toolSet{
		log: opts.Store, roster: opts.Roster, readOnly: opts.ReadOnly, drain: opts.Drain, requireIdentity: opts.RequireIdentity,
		maxWait: opts.MaxWait, logger: logger.With("component", "mcp"), metrics: newCallMetrics(opts.Metrics),
		events: newEventTexts(eventTextsBudget),
	}
	specs := map[string]*toolSpec{}
	for _, spec := range catalog() {
		specs[spec.name] = spec
	}
	h := &Handler{tools: tools, specs: specs, native: true, maxBody: opts.MaxRequestBytes, waits: opts.Waits, progressEvery: opts.ProgressEvery}
	if opts.WriteTimeout > 0 {
		h.deadline = opts.MaxWait + opts.WriteTimeout
	}
	impl := &gosdk.Implementation{Name: hubServerName, Title: "lsnode", Version: opts.Version}
	h.serverMeta = serverMeta(impl)
	h.sdk, h.sdkStream = newSDKHandler(opts, impl, logger, tools, specs)
	return h
}

// ServeHTTP is the one path from a request body to a tool:
//
//  1. the body is read within MaxRequestBytes (413, or 400 when it cannot
//     be read) and the write deadline widened for a long wait;
//  2. the screen reads the envelope once, as the hub does, and answers
//     itself what the hub answers differently from the SDK (screen.go);
//  3. a mempalace_event_wait takes a slot of the client's cap of waits
//     (429 beyond it);
//  4. nativeCall decides, in one place, whether the handler answers
//     (native.go) or the SDK does (sdk.go); both run the same tools
//     (toolSet.run) and write the same bytes.
//
// Requests that are not POSTs (a GET stream, a DELETE of a session) get
// 405 with Allow: POST: the server has neither (writeMethodRefusal).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeMethodRefusal(w, r.Method)
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	if h.deadline > 0 {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(h.deadline))
	}
	req, forward, done := h.screen(w, r, body)
	if done {
		return
	}
	if req.tool == toolEventWait && h.waits != nil {
		if !h.waits.Acquire(r) {
			text, retryAfter := h.waits.Refusal()
			w.Header().Set("Retry-After", retryAfter)
			writeRPCError(w, http.StatusTooManyRequests, req.env.Get("id"), codeToolFailure, text)
			return
		}
		defer h.waits.Release(r)
	}
	if call, ok := h.nativeCall(r, req, body); ok {
		h.serveNative(w, r, call)
		return
	}
	h.serveSDK(w, r, req, forward)
}
