package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// The read-only resources, for the clients that name a protocol version:
// an agent's owed set, a thread, one event, one artifact. Each is a URI
// template whose one variable becomes a tool's argument; reading it runs
// that tool with the caller's identity, and the contents are the tool's
// text (application/json), byte for byte. A read the tool refuses is the
// JSON-RPC error of a resource not found, with the tool's text.

// resourceScheme is the scheme of the resources' URIs.
const resourceScheme = "lsnode://"

// threadLimit is how many events a thread resource holds: the most one
// event_list returns.
const threadLimit = 500

// resourceSpec is one resource template and the tool call it reads.
type resourceSpec struct {
	template *gosdk.ResourceTemplate
	prefix   string // the URI up to the variable
	suffix   string // the URI after it
	// args are the tool's arguments for the variable's value.
	args func(value string) map[string]any
	tool *toolSpec
}

// eventGetSpec is the reader behind the event resource: not a tool (the
// hub has none), but run as one, with the hub's texts.
func eventGetSpec() *toolSpec {
	return &toolSpec{
		name:     "lsnode_event_get",
		props:    []toolProp{routingProp("event_id", "Id of the event.")},
		required: []string{"event_id"},
		run:      (*toolSet).eventGet,
	}
}

// resources lists the resource templates in resources/templates/list
// order.
func resources(specs map[string]*toolSpec) []*resourceSpec {
	template := func(name, title, path, variable, desc string) *gosdk.ResourceTemplate {
		return &gosdk.ResourceTemplate{
			Name: name, Title: title, MIMEType: "application/json", Description: desc,
			URITemplate: resourceScheme + strings.Replace(path, "*", "{"+variable+"}", 1),
		}
	}
	owed := template("owed", "Events an agent owes a reply to", "agents/*/owed", "agent",
		"The events the agent still owes a reply to: mempalace_event_owed {agent}, its answer as the text.")
	thread := template("thread", "A thread", "threads/*", "correlation_id",
		fmt.Sprintf("The events of one correlation id, oldest first: mempalace_event_list {correlation_id, order: asc, limit: %d}, "+
			"its answer as the text.", threadLimit))
	event := template("event", "One event", "events/*", "event_id",
		`One event: {"event": <the event as event_list returns it>}.`)
	artifact := template("artifact", "One artifact", "artifacts/*", "artifact_id",
		"One artifact with its content: mempalace_artifact_get {artifact_id}, its answer as the text.")
	return []*resourceSpec{
		{template: owed, prefix: resourceScheme + "agents/", suffix: "/owed", tool: specs[toolEventOwed],
			args: func(v string) map[string]any { return map[string]any{"agent": v} }},
		{template: thread, prefix: resourceScheme + "threads/", tool: specs[toolEventList],
			args: func(v string) map[string]any {
				return map[string]any{"correlation_id": v, "order": "asc", "limit": threadLimit}
			}},
		{template: event, prefix: resourceScheme + "events/", tool: eventGetSpec(),
			args: func(v string) map[string]any { return map[string]any{"event_id": v} }},
		{template: artifact, prefix: resourceScheme + "artifacts/", tool: specs[toolArtifactGet],
			args: func(v string) map[string]any { return map[string]any{"artifact_id": v} }},
	}
}

// variable is the template variable's value in uri, percent-decoded;
// false when uri is not of this template.
func (r *resourceSpec) variable(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, r.prefix)
	if !ok {
		return "", false
	}
	rest, ok = strings.CutSuffix(rest, r.suffix)
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	value, err := url.PathUnescape(rest)
	return value, err == nil
}

// read reads uri: the tool's text, or the JSON-RPC error of a resource
// not found (a refusal, with the tool's text) or of the tool.
func (r *resourceSpec) read(ctx context.Context, tools *toolSet, uri string) (*gosdk.ReadResourceResult, error) {
	value, ok := r.variable(uri)
	if !ok {
		return nil, gosdk.ResourceNotFoundError(uri)
	}
	args, _ := json.Marshal(r.args(value)) // strings and ints always encode
	res, _, rpcErr := tools.call(withCaller(ctx), r.tool, args)
	if rpcErr != nil {
		return nil, rpcErr
	}
	text := res.appendText(nil)
	if res.failed {
		var refusal struct{ Error string }
		_ = json.Unmarshal(text, &refusal)                                                              // a refusal is {"error": ...}
		data, _ := json.Marshal(map[string]string{"uri": uri})                                          // a string map always encodes
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: refusal.Error, Data: data} // the code of a resource not found
	}
	return &gosdk.ReadResourceResult{Contents: []*gosdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(text)}}}, nil
}

// eventGet answers one event, {"event": ...}, or the hub's "not found"
// for an id that does not exist or that the caller may not read.
func (t *toolSet) eventGet(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	id := c.routing("event_id", true)
	if c.err != nil {
		return nil, c.err
	}
	notFound := toolFailure(fmt.Sprintf("event %s not found", rules.Repr(id)))
	seq, err := t.log.EventSeq(ctx, id)
	var missing *store.ValidationError
	switch {
	case errors.As(err, &missing):
		return nil, notFound
	case err != nil:
		return nil, err
	}
	scope, err := t.readScope(ctx)
	if err != nil {
		return nil, err
	}
	page, err := t.log.List(ctx, store.Filter{AfterSeq: seq - 1, Limit: 1, Order: "asc", Scope: scope})
	if err != nil {
		return nil, err
	}
	if len(page.Events) == 0 || page.Events[0].ID != id {
		return nil, notFound
	}
	return pyjson.Object{{Key: "event", Value: page.Events[0]}}, nil
}
