package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// toolSpec describes one MCP tool: what tools/list advertises and what the
// argument handling checks (docs/compatibility.md#mcp-envelope-and-argument-handling, docs/compatibility.md#tools).
type toolSpec struct {
	name  string
	title string
	desc  string
	// writer marks a tool that changes the log: it is hidden and refused in
	// read-only mode, and answers {"success": ...} envelopes.
	writer bool
	// props are the schema properties, in the order tools/list shows them.
	props []toolProp
	// required are the parameters that must be present, in the order the
	// Python handler's signature lists them (its error names them so).
	required []string
	// out is the output schema (output.go).
	out *jsonschema.Schema
	run toolFunc
}

// toolFunc runs a tool whose arguments passed prepare. It returns the
// payload (a writer's without "success", as a pyjson.Object) or an error
// that settle maps.
type toolFunc func(t *toolSet, ctx context.Context, a *callArgs) (any, error)

type toolProp struct {
	name   string
	schema *jsonschema.Schema
}

func (s *toolSpec) prop(key string) *jsonschema.Schema {
	i := slices.IndexFunc(s.props, func(p toolProp) bool { return p.name == key })
	if i < 0 {
		return nil
	}
	return s.props[i].schema
}

func (s *toolSpec) hasProp(key string) bool { return s.prop(key) != nil }

func (s *toolSpec) isInteger(key string) bool {
	p := s.prop(key)
	return p != nil && p.Type == "integer"
}

// tool is the tools/list entry.
func (s *toolSpec) tool() *gosdk.Tool {
	in := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, // false
		Required:             s.required,
	}
	for _, p := range s.props {
		in.Properties[p.name] = p.schema
		in.PropertyOrder = append(in.PropertyOrder, p.name)
	}
	return &gosdk.Tool{Name: s.name, Title: s.title, Description: s.desc, InputSchema: in, OutputSchema: s.out, Annotations: s.annotations()}
}

// annotations are the tool's hints: a reader only reads and answers the
// same to the same call; a writer appends to a log that is never edited
// (nothing is destroyed) and stores something new on every call without
// an idempotency_key (so it is not idempotent); no tool reaches beyond
// the node's own log.
func (s *toolSpec) annotations() *gosdk.ToolAnnotations {
	a := &gosdk.ToolAnnotations{Title: s.title, OpenWorldHint: ptr(false)}
	if s.writer {
		a.DestructiveHint = ptr(false)
	} else {
		a.ReadOnlyHint, a.IdempotentHint = true, true
	}
	return a
}

func prop(name string, s *jsonschema.Schema) toolProp { return toolProp{name: name, schema: s} }

func ptr[T any](v T) *T { return &v }

// stringProp is a free-form string of at most maxLength characters.
func stringProp(name, desc string, maxLength int) toolProp {
	return prop(name, &jsonschema.Schema{Type: "string", MaxLength: ptr(maxLength), Description: desc})
}

// enumProp is a string that is one of values.
func enumProp(name, desc string, values ...string) toolProp {
	s := &jsonschema.Schema{Type: "string", Description: desc, MaxLength: ptr(0)}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
		*s.MaxLength = max(*s.MaxLength, len(v))
	}
	return prop(name, s)
}

// routingProp is a routing field: stripped, at most 256 characters, no
// control characters.
func routingProp(name, desc string) toolProp {
	return prop(name, &jsonschema.Schema{
		Type:        "string",
		MaxLength:   ptr(rules.MaxRouting),
		Description: fmt.Sprintf("%s At most %d characters after trimming; no control characters.", desc, rules.MaxRouting),
	})
}

func eventTypeProp(desc string) toolProp {
	return prop("type", &jsonschema.Schema{
		Type:        "string",
		Pattern:     `^[a-z0-9][a-z0-9_.-]{0,63}$`,
		MaxLength:   ptr(64),
		Description: desc + " " + strings.ToUpper(eventTypeRule[:1]) + eventTypeRule[1:],
	})
}

var statuses = []string{"open", "claimed", "ready", "applied", "blocked", "failed", "superseded"}

func statusProp(desc string) toolProp {
	return enumProp("status", desc, statuses...)
}

// textProp is verbatim text bounded in UTF-8 bytes. JSON Schema's
// maxLength counts characters, so it can only state the byte limit as an
// upper bound; the description says which one the server enforces.
func textProp(name, desc string, maxBytes int) toolProp {
	return prop(name, &jsonschema.Schema{
		Type:      "string",
		MaxLength: ptr(maxBytes),
		Description: fmt.Sprintf("%s Stored verbatim, never truncated. At most %d bytes of UTF-8 "+
			"(maxLength counts characters; the server enforces the byte limit). No NUL characters.", desc, maxBytes),
	})
}

func metadataProp(desc string) toolProp {
	return prop("metadata", &jsonschema.Schema{
		Type:          "object",
		PropertyNames: &jsonschema.Schema{Not: &jsonschema.Schema{Const: ptr[any](store.ExtensionKey)}},
		Description: fmt.Sprintf("%s At most %d bytes (64 KiB) as canonical JSON (sorted keys, no spaces); "+
			"no NaN or Infinity. The key %q is reserved.", desc, rules.MaxMetadataBytes, store.ExtensionKey),
	})
}

func limitProp(desc string) toolProp {
	return prop("limit", &jsonschema.Schema{
		Type:    "integer",
		Minimum: ptr(1.0),
		Maximum: ptr(float64(rules.MaxListLimit)),
		Description: fmt.Sprintf("%s Default %d; larger values are clamped to %d.",
			desc, rules.DefaultListLimit, rules.MaxListLimit),
	})
}

func timeoutProp() toolProp {
	return prop("timeout_ms", &jsonschema.Schema{
		Type:    "integer",
		Minimum: ptr(0.0),
		Maximum: ptr(float64(rules.MaxWaitMS)),
		Description: fmt.Sprintf("How long to wait, in milliseconds. Default %d; larger values are clamped to %d (5 minutes); 0 checks once.",
			rules.DefaultWaitMS, rules.MaxWaitMS),
	})
}

func idempotencyProp() toolProp {
	return prop("idempotency_key", &jsonschema.Schema{
		Type:      "string",
		MaxLength: ptr(rules.MaxRouting),
		Description: "Optional retry key, unique per writing agent. Retrying a call with the same " +
			"key stores nothing new and returns the original result with \"duplicate\": true.",
	})
}

func cursorProp(desc string) toolProp {
	return prop("cursor", &jsonschema.Schema{
		Type:        "string",
		MaxLength:   ptr(store.MaxCursorLength),
		Description: fmt.Sprintf("%s At most %d characters.", desc, store.MaxCursorLength),
	})
}
