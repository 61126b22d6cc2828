package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestCatalogHints: every tool has a title and an output schema; readers
// are read-only and idempotent, writers not destructive and not
// idempotent; none is open-world. Every string argument has a maxLength,
// and the store's limits are in the schemas.
func TestCatalogHints(t *testing.T) {
	for _, spec := range catalog() {
		tool := spec.tool()
		a := tool.Annotations
		if tool.Title == "" || a == nil || a.Title != tool.Title || tool.OutputSchema == nil {
			t.Fatalf("%s: title %q, annotations %+v, output schema %v", spec.name, tool.Title, a, tool.OutputSchema)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint %v", spec.name, a.OpenWorldHint)
		}
		switch {
		case spec.writer && (a.ReadOnlyHint || a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint):
			t.Errorf("writer %s: %+v", spec.name, a)
		case !spec.writer && (!a.ReadOnlyHint || !a.IdempotentHint):
			t.Errorf("reader %s: %+v", spec.name, a)
		}
		if _, err := tool.OutputSchema.(*jsonschema.Schema).Resolve(nil); err != nil {
			t.Errorf("%s: output schema: %v", spec.name, err)
		}
		for _, p := range spec.props {
			for _, s := range []*jsonschema.Schema{p.schema, p.schema.Items} {
				if s != nil && s.Type == "string" && (s.MaxLength == nil || *s.MaxLength <= 0) {
					t.Errorf("%s.%s: a string without maxLength", spec.name, p.name)
				}
			}
		}
	}
	schema, _ := json.Marshal(eventAppendSpec().tool())
	for _, want := range []string{`"pattern":"^[a-z0-9][a-z0-9_.-]{0,63}$"`, `65536 bytes (64 KiB)`, `"propertyNames":{"not":{"const":"_lsnode"}}`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("event_append's schema lacks %s: %s", want, schema)
		}
	}
}
