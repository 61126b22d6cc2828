package mcp

import (
	"strings"
	"testing"
)

// With RequireIdentity a call that reaches the tools without an identity
// on its context is refused, never served with full access.
func TestTokens_ToolsFailClosedWithoutIdentity(t *testing.T) {
	h := newMCPHarness(t, Options{RequireIdentity: true})
	r := h.call(toolEventList, `{}`)
	if r.Error == nil || r.Error.Code != codeToolFailure || !strings.Contains(string(r.Error.Data), "no caller identity") {
		t.Fatalf("call without identity: %+v", r)
	}
}
