package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newSDKHandler is the official Go SDK's streamable HTTP handler
// (stateless, JSON responses) over a server named impl with the tools of
// specs, each run by tools.run as the native path runs it, and the same
// handler with event-stream responses, for the waits that report
// progress (progress.go). They answer what nativeCall leaves to them.
func newSDKHandler(opts Options, impl *gosdk.Implementation, logger *slog.Logger, tools *toolSet, specs map[string]*toolSpec) (jsonAnswers, streamed http.Handler) {
	// The SDK logs every stateless request's session start and end at
	// INFO; only its warnings and errors reach the node's log.
	sdkLogger := slog.New(minLevel{Handler: logger.Handler(), min: slog.LevelWarn})
	server := gosdk.NewServer(impl, &gosdk.ServerOptions{
		Logger:                    sdkLogger,
		Capabilities:              &gosdk.ServerCapabilities{Tools: &gosdk.ToolCapabilities{}, Resources: &gosdk.ResourceCapabilities{}},
		SupportedProtocolVersions: protocolVersions,
	})
	for _, spec := range catalog() {
		server.AddTool(spec.tool(), sdkTool(tools, specs[spec.name]))
	}
	for _, r := range resources(specs) {
		server.AddResourceTemplate(r.template, func(ctx context.Context, req *gosdk.ReadResourceRequest) (*gosdk.ReadResourceResult, error) {
			return r.read(ctx, tools, req.Params.URI)
		})
	}
	server.AddReceivingMiddleware(listedTools(specs, opts.ReadOnly), hubServerInfo)
	handler := func(json bool) http.Handler {
		return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return server }, &gosdk.StreamableHTTPOptions{
			Stateless:           true,
			JSONResponse:        json,
			Logger:              sdkLogger,
			MaxRequestBodyBytes: opts.MaxRequestBytes,
			// The node's Host pin (with its configured extra hosts) is the
			// policy; the SDK's own loopback check would refuse a proxy's Host.
			DisableLocalhostProtection: true,
		})
	}
	return handler(true), handler(false)
}

// sdkTool adapts a tool to the SDK: its result is the one text content,
// the structured content and isError on a failure. A streamed
// event_wait reports progress while it runs.
func sdkTool(tools *toolSet, spec *toolSpec) gosdk.ToolHandler {
	return func(ctx context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
		if every := progressEvery(ctx); every > 0 && spec.name == toolEventWait {
			if token := req.Params.GetProgressToken(); token != nil {
				stop := reportProgress(ctx, req.Session, token, every)
				defer stop()
			}
		}
		res, rpcErr := tools.run(ctx, spec, req.Params.Arguments, wantsStructured(req.ProtocolVersion()))
		if rpcErr != nil {
			return nil, rpcErr
		}
		out := &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: string(res.appendText(nil))}}, IsError: res.failed}
		if res.structured {
			out.StructuredContent = json.RawMessage(res.appendStructured(nil))
		}
		return out, nil
	}
}

// serveSDK forwards a screened request to the SDK as one of its clients
// would send it (JSON, both Accept types), on a context that carries the
// caller's for event_wait's cancellation; an answer the SDK would not
// write as the hub does goes through sdkAnswer. An event_wait that asks
// for progress and accepts a stream is answered as a stream.
func (h *Handler) serveSDK(w http.ResponseWriter, r *http.Request, req rpcRequest, forward []byte) {
	answer := newSDKAnswer(w, req)
	if answer != nil && answer.id != nil {
		forward = withMember(forward, "id", json.RawMessage(placeholderID))
	}
	sdk, ctx := h.sdk, withCaller(r.Context())
	if answer == nil && streamsProgress(r, req) {
		sdk, ctx = h.sdkStream, withProgress(ctx, h.progressEvery)
	}
	r = r.WithContext(ctx)
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(forward)), int64(len(forward))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if answer == nil {
		sdk.ServeHTTP(w, r)
		return
	}
	h.sdk.ServeHTTP(answer, r)
	answer.finish() // not deferred: after a panic nothing is sent, and the surface's recovery answers
}

// listedTools fits tools/list to the client: a read-only node leaves the
// writers out, as a read-only hub does, and a client of an era without
// structured results (wantsStructured) gets the tools without their
// output schemas, since its results carry no structured content.
func listedTools(specs map[string]*toolSpec, readOnly bool) gosdk.Middleware {
	return func(next gosdk.MethodHandler) gosdk.MethodHandler {
		return func(ctx context.Context, method string, req gosdk.Request) (gosdk.Result, error) {
			res, err := next(ctx, method, req)
			list, ok := res.(*gosdk.ListToolsResult)
			if !ok {
				return res, err
			}
			if readOnly {
				list.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *gosdk.Tool) bool {
					return specs[t.Name].writer
				})
			}
			if r, ok := req.(*gosdk.ListToolsRequest); ok && !wantsStructured(r.ProtocolVersion()) {
				tools := make([]*gosdk.Tool, len(list.Tools))
				for i, t := range list.Tools {
					plain := *t // the server's tools are shared: change a copy
					plain.OutputSchema = nil
					tools[i] = &plain
				}
				list.Tools = tools
			}
			return res, err
		}
	}
}

// hubServerName is the server's name, the hub's: clients may check it.
const hubServerName = "mempalace"

// hubServerInfo answers initialize as the hub does: serverInfo {name,
// version} and the capabilities {"tools": {}}, so the clients of the
// initialize eras get the hub's answer byte for byte (their resources are
// served, not announced). The sessionless era, which has no initialize,
// learns the server's full identity from every result's _meta (the hub's
// name, the title lsnode and lsnode's version) and its capabilities,
// resources included, from server/discover.
func hubServerInfo(next gosdk.MethodHandler) gosdk.MethodHandler {
	return func(ctx context.Context, method string, req gosdk.Request) (gosdk.Result, error) {
		res, err := next(ctx, method, req)
		if init, ok := res.(*gosdk.InitializeResult); ok && init.ServerInfo != nil {
			init.ServerInfo = &gosdk.Implementation{Name: init.ServerInfo.Name, Version: init.ServerInfo.Version}
			init.Capabilities = &gosdk.ServerCapabilities{Tools: init.Capabilities.Tools}
		}
		return res, err
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

// placeholderID is the id a request is forwarded with when the SDK would
// not echo its own: the hub answers with any id as Python decoded it,
// while the SDK rounds integers beyond 2^53, turns 1.0 into 1 and refuses
// ids that are neither numbers nor strings.
const placeholderID = `"lsnode.request-id"`

// sdkAnswer holds the SDK's answer to a request and sends it as the hub
// would: with the request's own id where the request was forwarded with
// placeholderID, and for tools/list without the cache-control members
// go-sdk adds to every list result (ttlMs and cacheScope), which the
// hub's {"tools": [...]} does not have (the sessionless protocol, which
// has them, keeps them).
type sdkAnswer struct {
	http.ResponseWriter
	id        []byte // the request's id as the hub writes it; nil: the SDK echoes it right
	listTools bool
	status    int
	buf       bytes.Buffer
}

// newSDKAnswer returns the holder of the answer to req, or nil when the
// SDK's answer goes out as it is.
func newSDKAnswer(w http.ResponseWriter, req rpcRequest) *sdkAnswer {
	id := hubID(req.env.Get("id"))
	listTools := req.method == "tools/list" && !req.sessionless()
	if id == nil && !listTools {
		return nil
	}
	return &sdkAnswer{ResponseWriter: w, id: id, listTools: listTools}
}

func (w *sdkAnswer) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *sdkAnswer) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.buf.Write(b)
}

// finish sends the answer, rewritten.
func (w *sdkAnswer) finish() {
	const frame = `{"jsonrpc":"2.0","id":`
	body := w.buf.Bytes()
	if rest, ok := bytes.CutPrefix(body, []byte(frame+placeholderID)); w.id != nil && ok {
		body = append(append([]byte(frame), w.id...), rest...)
	}
	if w.listTools {
		body = withoutCacheControl(body)
	}
	w.ResponseWriter.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(cmp.Or(w.status, http.StatusOK))
	_, _ = w.ResponseWriter.Write(body)
}

// withoutCacheControl is a JSON-RPC answer whose result object has no
// ttlMs or cacheScope member, every other byte as it was; an answer
// without a result object (an error) is returned as it is.
func withoutCacheControl(body []byte) []byte {
	env, err := jsonText.Members(body)
	if err != nil {
		return body
	}
	result := env.Get("result")
	if !isObject(result) {
		return body
	}
	members, _ := jsonText.Members(result) // a member of a valid body
	kept := make([]byte, 0, len(result))
	kept = append(kept, '{')
	for _, m := range members {
		if m.Key == "ttlMs" || m.Key == "cacheScope" {
			continue
		}
		if len(kept) > 1 {
			kept = append(kept, ',')
		}
		key, _ := json.Marshal(m.Key) // a string always encodes
		kept = append(append(append(kept, key...), ':'), m.Value...)
	}
	kept = append(kept, '}')
	at := cap(body) - cap(result) // result is body[at : at+len(result)]
	out := make([]byte, 0, len(body))
	return append(append(append(out, body[:at]...), kept...), body[at+len(result):]...)
}
