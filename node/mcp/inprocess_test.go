package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/internal/nodetest"
)

// piContext carries the identity of nodetest's agent token (pi).
func piContext(t *testing.T) context.Context {
	t.Helper()
	tokens, err := auth.OpenTokens(nodetest.WriteTokensFile(t, nodetest.TokensFile), nodetest.SharedToken)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := http.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Authorization", "Bearer "+nodetest.AgentToken)
	id, ok := auth.NewAuthenticator(nodetest.SharedToken, tokens).Identify(r)
	if !ok {
		t.Fatal("the agent token is not accepted")
	}
	return auth.WithIdentity(context.Background(), id)
}

func TestCallTool_RunsToolsWithTheCallersIdentity(t *testing.T) {
	st := nodetest.OpenStore(t)
	h := NewHandler(Options{Store: st, RequireIdentity: true})
	ctx := piContext(t)
	args := func(from string) json.RawMessage {
		return json.RawMessage(`{"type": "note", "stream": "s", "room": "r", "from_agent": "` + from + `", "body": "hi"}`)
	}
	text, err := h.CallTool(ctx, "mempalace_event_append", args("bob"))
	if err != nil || !strings.Contains(string(text), `"success": false`) || !strings.Contains(string(text), "is not a name") {
		t.Fatalf("writing as bob: %s %v", text, err)
	}
	text, err = h.CallTool(ctx, "mempalace_event_append", args("pi@laptop"))
	if err != nil || !strings.HasPrefix(string(text), "{\n  \"success\": true") {
		t.Fatalf("writing as pi@laptop: %s %v", text, err)
	}
	if _, err := h.CallTool(context.Background(), "mempalace_event_append", args("pi@laptop")); err == nil {
		t.Fatal("a call without an identity ran although agent tokens are configured")
	}

	var ce *CallError
	if _, err := h.CallTool(ctx, "mempalace_search", nil); !errors.As(err, &ce) || ce.RPCCode() != codeUnknownTool {
		t.Fatalf("unknown tool: %v", err)
	}
	if _, err := h.CallTool(ctx, "mempalace_event_append", json.RawMessage(`{}`)); !errors.As(err, &ce) || ce.Code != -32602 {
		t.Fatalf("missing arguments: %v", err)
	}
	ro := NewHandler(Options{Store: st, Config: Config{ReadOnly: true}})
	if _, err := ro.CallTool(ctx, "mempalace_event_append", args("pi@laptop")); !errors.As(err, &ce) || ce.Code != codeReadOnly {
		t.Fatalf("read-only: %v", err)
	}
}
