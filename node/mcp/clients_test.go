package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	mark3client "github.com/mark3labs/mcp-go/client"
	mark3 "github.com/mark3labs/mcp-go/mcp"

	"github.com/lsnode/lsnode/internal/mcpdrive"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// toolCaller runs one tool through an MCP client and returns its text.
type toolCaller func(t *testing.T, tool string, args map[string]any) string

// allToolNames is the catalogue as tools/list must show it.
func allToolNames() []string {
	var names []string
	for _, spec := range catalog() {
		names = append(names, spec.name)
	}
	slices.Sort(names)
	return names
}

// exerciseTools calls every tool once with valid arguments, each call
// using what earlier ones stored, and checks each payload.
func exerciseTools(t *testing.T, call toolCaller) {
	t.Helper()
	run := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		text := call(t, tool, args)
		var p map[string]any
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatalf("%s: payload %q: %v", tool, text, err)
		}
		if p["error"] != nil || p["success"] == false {
			t.Fatalf("%s: %v", tool, p)
		}
		return p
	}
	art := run(toolArtifactPut, map[string]any{"kind": "note", "content": "n", "created_by": "a"})["artifact"].(map[string]any)
	ev := run(toolEventAppend, map[string]any{
		"type": "task.request", "stream": "s", "room": "r", "from_agent": "a", "to_agent": "b",
		"artifact_ids": []string{art["id"].(string)}, "metadata": map[string]any{"k": 1}, "idempotency_key": "once",
	})["event"].(map[string]any)
	if got := run(toolArtifactGet, map[string]any{"artifact_id": art["id"]})["artifact"].(map[string]any); got["content"] != "n" {
		t.Fatalf("artifact_get %v", got)
	}
	list := run(toolEventList, map[string]any{"to_agent": "b", "limit": 10, "order": "asc", "preview": true})
	if list["count"] != 1.0 {
		t.Fatalf("event_list %v", list)
	}
	if p := run(toolEventWait, map[string]any{"to_agent": "b", "timeout_ms": 1000}); p["timed_out"] != false || p["count"] != 1.0 {
		t.Fatalf("event_wait %v", p)
	}
	if p := run(toolEventOwed, map[string]any{"agent": "b"}); p["count"] != 1.0 {
		t.Fatalf("event_owed %v", p)
	}
	run(toolEventAck, map[string]any{"event_id": ev["id"], "from_agent": "b", "status": "applied"})
	if p := run(toolEventOwed, map[string]any{"agent": "b", "stream": "s"}); p["count"] != 0.0 {
		t.Fatalf("event_owed after the ack %v", p)
	}
	run(toolPatchSubmit, map[string]any{"content": "--- a\n+++ b\n", "from_agent": "b", "stream": "s"})
	run(toolTaskCreate, map[string]any{
		"project": "p", "from_agent": "a", "to_agent": "b", "goal": "g", "branch": "main", "base_commit": "abcdef0", "done": "d",
	})
	if p := run(toolMeshPeers, nil); p["replica_id"] != "rep_test" {
		t.Fatalf("mesh_peers %v", p)
	}
}

func clientHarness(t *testing.T) *mcpHarness {
	return newMCPHarness(t, Options{Roster: func(context.Context) (any, error) {
		return pyjson.Object{{Key: "replica_id", Value: "rep_test"}}, nil
	}})
}

// TestMCPOfficialClient drives the server with the Go SDK's own client over
// the full streamable HTTP handshake.
func TestMCPOfficialClient(t *testing.T) {
	h := clientHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := gosdk.NewClient(&gosdk.Implementation{Name: "official", Version: "1"}, nil)
	session, err := client.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer session.Close()
	if info := session.InitializeResult().ServerInfo; info.Name != "mempalace" {
		t.Fatalf("server info %+v", info)
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if fmt.Sprint(names) != fmt.Sprint(allToolNames()) {
		t.Fatalf("tools/list %v", names)
	}
	exerciseTools(t, func(t *testing.T, tool string, args map[string]any) string {
		res, err := session.CallTool(ctx, &gosdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %+v", tool, res)
		}
		return res.Content[0].(*gosdk.TextContent).Text
	})
	if _, err := session.CallTool(ctx, &gosdk.CallToolParams{Name: toolEventList, Arguments: map[string]any{"bogus": 1}}); err == nil ||
		!strings.Contains(err.Error(), "Unknown parameter 'bogus' for tool mempalace_event_list") {
		t.Fatalf("unknown parameter through the official client: %v", err)
	}
}

// TestMCPMark3Client drives the server with github.com/mark3labs/mcp-go's
// streamable HTTP client, an independent implementation.
func TestMCPMark3Client(t *testing.T) {
	h := clientHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mark3client.NewStreamableHttpClient(h.url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	init, err := c.Initialize(ctx, mark3.InitializeRequest{Params: mark3.InitializeParams{
		ClientInfo: mark3.Implementation{Name: "mark3", Version: "1"},
	}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if init.ServerInfo.Name != "mempalace" || init.ProtocolVersion != "2026-07-28" {
		t.Fatalf("initialize %+v", init)
	}
	tools, err := c.ListTools(ctx, mark3.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if fmt.Sprint(names) != fmt.Sprint(allToolNames()) {
		t.Fatalf("tools/list %v", names)
	}
	exerciseTools(t, func(t *testing.T, tool string, args map[string]any) string {
		var req mark3.CallToolRequest
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %+v", tool, res)
		}
		text, ok := res.Content[0].(mark3.TextContent)
		if !ok {
			t.Fatalf("%s: content %T", tool, res.Content[0])
		}
		return text.Text
	})
}

// TestMCPClientsDriveEverything runs internal/mcpdrive's scenario -
// every tool, every resource, every failure path, each answer held to its
// era's promises and to the hub's text - through the go-sdk client in the
// sessionless protocol and pinned to 2025-11-25, mark3labs/mcp-go with
// continuous listening, and hand-written JSON-RPC with and without a
// version.
func TestMCPClientsDriveEverything(t *testing.T) {
	h := clientHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bare := mcpdrive.NewRaw(h.url, "t", "")
	defer bare.Close()
	for _, tc := range []struct {
		version string
		connect func(log *mcpdrive.LogBuffer) (mcpdrive.Client, error)
	}{
		{"2026-07-28", func(*mcpdrive.LogBuffer) (mcpdrive.Client, error) {
			return mcpdrive.NewGoSDK(ctx, h.url, "t", "2026-07-28")
		}},
		{"2025-11-25", func(*mcpdrive.LogBuffer) (mcpdrive.Client, error) {
			return mcpdrive.NewGoSDK(ctx, h.url, "t", "2025-11-25")
		}},
		// Continuous listening keeps mark3labs/mcp-go on the initialize
		// handshake: the GET stream belongs to the initialize eras.
		{"2025-11-25", func(log *mcpdrive.LogBuffer) (mcpdrive.Client, error) { return mcpdrive.NewMark3(ctx, h.url, "t", log) }},
		{"", func(*mcpdrive.LogBuffer) (mcpdrive.Client, error) { return mcpdrive.NewRaw(h.url, "t", ""), nil }},
		{"2025-11-25", func(*mcpdrive.LogBuffer) (mcpdrive.Client, error) {
			return mcpdrive.NewRaw(h.url, "t", "2025-11-25"), nil
		}},
		{"2025-03-26", func(*mcpdrive.LogBuffer) (mcpdrive.Client, error) {
			return mcpdrive.NewRaw(h.url, "t", "2025-03-26"), nil
		}},
	} {
		var log mcpdrive.LogBuffer
		c, err := tc.connect(&log)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.Name(), func(t *testing.T) {
			mcpdrive.Drive(ctx, t, c, bare, tc.version)
			mcpdrive.CheckListener(t, c, &log)
		})
		c.Close()
	}
}
