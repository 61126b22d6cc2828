package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// JSON-RPC error codes of the Python hub beyond the standard ones.
const (
	codeToolFailure = -32000 // a handler failed for a reason other than its input
	codeReadOnly    = -32003 // a writer called on a read-only server
)

// Outcomes of a tool call, the result label of lsnode_mcp_calls_total.
const (
	outcomeOK       = "ok"       // the tool did its work
	outcomeFailed   = "failed"   // refused input, reported inside the payload
	outcomeInvalid  = "invalid"  // JSON-RPC -32602: unknown, uncoercible or missing arguments
	outcomeReadOnly = "readonly" // JSON-RPC -32003
	outcomeInternal = "internal" // JSON-RPC -32000
)

// toolSet runs the tools against the log.
type toolSet struct {
	log      Store
	roster   func(ctx context.Context) (any, error)
	readOnly bool
	// requireIdentity refuses calls without a caller identity (scope.go).
	requireIdentity bool
	drain           context.Context // nil: never drains
	maxWait         time.Duration   // bounds an event_wait; 0: the hub's clamp only
	logger          *slog.Logger
	metrics         *callMetrics
	events          *eventTexts // the rendered events of pages (page.go)
}

// failure is refused input: its text is the hub's, and it travels inside
// the tool's payload rather than as a JSON-RPC error.
type failure struct{ msg string }

func (f *failure) Error() string { return f.msg }

func toolFailure(msg string) error { return &failure{msg: msg} }

// run is one tool call, whichever path it came by (native or the SDK
// server): the hub's argument handling, the tool, the call recorded. It
// returns the result, with its structured content when structured (the
// client's era has it: wantsStructured), or the JSON-RPC error.
func (t *toolSet) run(ctx context.Context, spec *toolSpec, raw json.RawMessage, structured bool) (toolResult, *jsonrpc.Error) {
	start := time.Now()
	res, outcome, err := t.call(ctx, spec, raw)
	t.metrics.observe(spec.name, outcome, time.Since(start))
	res.structured = structured
	return res, err
}

func (t *toolSet) call(ctx context.Context, spec *toolSpec, raw json.RawMessage) (toolResult, string, *jsonrpc.Error) {
	a, err := parseArgs(raw)
	if err != nil {
		return toolResult{}, outcomeInvalid, invalidParams("Invalid params: 'name' must be a string and 'arguments' an object")
	}
	if rpcErr := spec.prepare(a, t.readOnly); rpcErr != nil {
		if rpcErr.Code == codeReadOnly {
			return toolResult{}, outcomeReadOnly, rpcErr
		}
		return toolResult{}, outcomeInvalid, rpcErr
	}
	payload, err := t.runTool(ctx, spec, a)
	return t.settle(spec, payload, err)
}

// runTool runs a tool whose arguments passed prepare. A panic becomes an
// error, which settle answers as the hub answers any unforeseen handler
// failure (-32000), rather than a dropped connection or a bare 500.
func (t *toolSet) runTool(ctx context.Context, spec *toolSpec, a *callArgs) (payload any, err error) {
	defer func() {
		if p := recover(); p != nil {
			t.logger.Error("mcp tool panicked", "tool", spec.name, "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return spec.run(t, ctx, a)
}

// settle is the one place where a tool's outcome becomes what the client
// sees. Refused input is a result whose payload carries the hub's text
// ({"success": false, "error": ...} for writers, {"error": ...} for
// readers) and, unlike the hub's, isError: true (docs/compatibility.md,
// "isError on failed calls"); a read-only store is the -32003 refusal;
// anything else is the hub's -32000 "Internal tool error".
func (t *toolSet) settle(spec *toolSpec, payload any, err error) (toolResult, string, *jsonrpc.Error) {
	var (
		fail  *failure
		rule  *rules.Error
		valid *store.ValidationError
		query *store.SearchQueryError
	)
	switch {
	case err == nil:
		if spec.writer {
			members := payload.(pyjson.Object)
			payload = append(append(make(pyjson.Object, 0, len(members)+1), pyjson.Member{Key: "success", Value: true}), members...)
		}
		return t.text(spec, payload, outcomeOK)
	case errors.As(err, &fail), errors.As(err, &rule), errors.As(err, &valid), errors.As(err, &query):
		out := pyjson.Object{{Key: "error", Value: err.Error()}}
		if spec.writer {
			out = append(pyjson.Object{{Key: "success", Value: false}}, out...)
		}
		return t.text(spec, out, outcomeFailed)
	case errors.Is(err, store.ErrReadOnly):
		return toolResult{}, outcomeReadOnly, readOnlyRefusal(spec.name)
	}
	t.logger.Error("mcp tool failed", "tool", spec.name, "err", err)
	data, _ := json.Marshal(map[string]string{"error_class": "InternalError", "message": err.Error()}) // a string map always encodes
	return toolResult{}, outcomeInternal, &jsonrpc.Error{Code: codeToolFailure, Message: "Internal tool error", Data: data}
}

// text renders a payload as the one text content the hub returns: JSON as
// Python's json.dumps(indent=2, ensure_ascii=False) writes it. A page of
// events is spliced from the cache of rendered events instead (page.go).
func (t *toolSet) text(spec *toolSpec, payload any, outcome string) (toolResult, string, *jsonrpc.Error) {
	res := toolResult{failed: outcome == outcomeFailed}
	var err error
	if page, ok := payload.(renderedPage); ok {
		res.page, err = page.pieces(t.events)
	} else {
		res.text, err = pyjson.DumpsIndent(payload)
	}
	if err != nil {
		return t.settle(spec, nil, err)
	}
	return res, outcome, nil
}

func readOnlyRefusal(tool string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]string{"tool": tool}) // a string map always encodes
	return &jsonrpc.Error{Code: codeReadOnly, Message: "Server is in read-only mode; this tool is disabled", Data: data}
}

// callerKey carries the HTTP request's context into tool handlers. The SDK
// runs handlers on a context that keeps the request's values but not its
// cancellation; a long wait looks it up to stop when the caller hangs up.
type callerKey struct{}

func withCaller(ctx context.Context) context.Context {
	return context.WithValue(ctx, callerKey{}, ctx)
}

// callerContext returns the HTTP request's context, or nil outside one.
func callerContext(ctx context.Context) context.Context {
	c, _ := ctx.Value(callerKey{}).(context.Context)
	return c
}
