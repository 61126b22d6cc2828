package mcp

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lsnode/lsnode/store/rules"
)

// toolSpec describes one MCP tool: what tools/list advertises and what the
// argument handling checks (mempalace-wire.md §2.1, §2.2).
type toolSpec struct {
	name string
	desc string
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
	t := &gosdk.Tool{Name: s.name, Description: s.desc, InputSchema: in, OutputSchema: s.out}
	if !s.writer {
		t.Annotations = &gosdk.ToolAnnotations{ReadOnlyHint: true}
	}
	return t
}

func prop(name string, s *jsonschema.Schema) toolProp { return toolProp{name: name, schema: s} }

func ptr[T any](v T) *T { return &v }

// stringProp is a free-form string.
func stringProp(name, desc string) toolProp {
	return prop(name, &jsonschema.Schema{Type: "string", Description: desc})
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
		Description: desc + " Lowercase letters, digits, '.', '_' and '-'; starts with a letter or digit; at most 64 characters.",
	})
}

var statuses = []any{"open", "claimed", "ready", "applied", "blocked", "failed", "superseded"}

func statusProp(desc string) toolProp {
	return prop("status", &jsonschema.Schema{Type: "string", Enum: statuses, Description: desc})
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
		Type: "object",
		Description: fmt.Sprintf("%s At most %d bytes as canonical JSON (sorted keys). The key %q is reserved.",
			desc, rules.MaxMetadataBytes, "_lsnode"),
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
	return prop("cursor", &jsonschema.Schema{Type: "string", Description: desc})
}
