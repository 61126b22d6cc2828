package mcp

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/internal/nodetest"
)

// sessionlessHeader is what a client of the sessionless protocol sends.
func sessionlessHeader() http.Header {
	return withHeader(sdkClientHeader(sessionlessSince), "Authorization", "Bearer test-token")
}

// sessionlessBody is a request of the sessionless protocol: the version
// and the client's capabilities in params._meta.
func sessionlessBody(method, params string) string {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	if params != "" {
		meta = params + "," + meta
	}
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + meta + `}}`
}

// TestMCPSessionless: server/discover lists the sessionless protocol
// beside the initialize versions and announces tools and resources;
// every result names the server (the hub's name, the title lsnode), and
// tools keep the SDK's list cache fields.
func TestMCPSessionless(t *testing.T) {
	h := newMCPHarness(t, Options{Version: "1.2.3"})
	p := &pathPair{t: t}
	do := func(method, params string) map[string]json.RawMessage {
		t.Helper()
		header := withHeader(sessionlessHeader(), "Mcp-Method", method)
		if method == "tools/call" {
			header.Set("Mcp-Name", toolEventList)
		}
		a := p.do(h.url, header, sessionlessBody(method, params))
		r := nodetest.DecodeRPC(t, a.body)
		if a.status != http.StatusOK || r.Error != nil {
			t.Fatalf("%s: %d %s", method, a.status, a.body)
		}
		var result map[string]json.RawMessage
		if err := json.Unmarshal(r.Result, &result); err != nil {
			t.Fatal(err)
		}
		return result
	}
	discover := do("server/discover", "")
	var versions []string
	if json.Unmarshal(discover["supportedVersions"], &versions) != nil || !slices.Equal(versions, protocolVersions) {
		t.Fatalf("supportedVersions %s", discover["supportedVersions"])
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(discover["capabilities"], &caps) != nil || caps["tools"] == nil || caps["resources"] == nil {
		t.Fatalf("capabilities %s", discover["capabilities"])
	}
	list := do("tools/list", "")
	if list["ttlMs"] == nil && list["cacheScope"] == nil {
		t.Fatalf("tools/list without its cache fields: %v", list)
	}
	call := do("tools/call", `"name":"mempalace_event_list","arguments":{"limit":1}`)
	if !strings.Contains(string(call["_meta"]), `"io.modelcontextprotocol/serverInfo":{"name":"mempalace","title":"lsnode","version":"1.2.3"}`) ||
		call["structuredContent"] == nil || string(call["resultType"]) != `"complete"` {
		t.Fatalf("tools/call: %v", call)
	}
	refused := do("tools/call", `"name":"mempalace_event_list","arguments":{"order":"up"}`)
	if string(refused["isError"]) != "true" {
		t.Fatalf("refusal: %v", refused)
	}
}

// TestMCPResourcesOfTheHubEra: the hub has no resources, so its bare
// clients get its Unknown method; a client that names a version is
// served.
func TestMCPResourcesOfTheHubEra(t *testing.T) {
	h := newMCPHarness(t, Options{})
	body := `{"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}`
	if status, _, out := h.post(body); status != http.StatusOK ||
		string(out) != `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Unknown method: resources/templates/list"}}` {
		t.Fatalf("bare: %d %s", status, out)
	}
	p := &pathPair{t: t}
	a := p.do(h.url, sdkClientHeader("2025-03-26"), body)
	if r := nodetest.DecodeRPC(t, a.body); r.Error != nil || !strings.Contains(string(r.Result), "lsnode://agents/{agent}/owed") {
		t.Fatalf("2025-03-26: %s", a.body)
	}
}
