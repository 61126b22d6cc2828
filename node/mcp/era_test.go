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
// every result names the server in its _meta (the hub's name, the title
// lsnode, the node's version), server/discover's included, which has no
// serverInfo of its own, and an error none; invalid params are a 400;
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
	const identity = `{"io.modelcontextprotocol/serverInfo":{"name":"mempalace","title":"lsnode","version":"1.2.3"}}`
	discover := do("server/discover", "")
	if string(discover["_meta"]) != identity || discover["serverInfo"] != nil {
		t.Fatalf("server/discover's identity: _meta %s, serverInfo %s", discover["_meta"], discover["serverInfo"])
	}
	var versions []string
	if json.Unmarshal(discover["supportedVersions"], &versions) != nil || !slices.Equal(versions, protocolVersions) {
		t.Fatalf("supportedVersions %s", discover["supportedVersions"])
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(discover["capabilities"], &caps) != nil || caps["tools"] == nil || caps["resources"] == nil {
		t.Fatalf("capabilities %s", discover["capabilities"])
	}
	list := do("tools/list", "")
	if list["ttlMs"] == nil && list["cacheScope"] == nil || string(list["_meta"]) != identity {
		t.Fatalf("tools/list without its cache fields or identity: %v", list)
	}
	call := do("tools/call", `"name":"mempalace_event_list","arguments":{"limit":1}`)
	if string(call["_meta"]) != identity || call["structuredContent"] == nil || string(call["resultType"]) != `"complete"` {
		t.Fatalf("tools/call: %v", call)
	}
	refused := do("tools/call", `"name":"mempalace_event_list","arguments":{"order":"up"}`)
	if string(refused["isError"]) != "true" {
		t.Fatalf("refusal: %v", refused)
	}
	header := withHeader(withHeader(sessionlessHeader(), "Mcp-Method", "tools/call"), "Mcp-Name", toolEventList)
	a := p.do(h.url, header, sessionlessBody("tools/call", `"name":"mempalace_event_list","arguments":{"bogus":1}`))
	if r := nodetest.DecodeRPC(t, a.body); a.status != http.StatusBadRequest || r.Error == nil || r.Error.Code != -32602 || strings.Contains(string(a.body), "_meta") {
		t.Fatalf("invalid params: %d %s", a.status, a.body)
	}
}

// TestMCPIdentityOfTheInitializeEras: the initialize eras learn the
// server's identity from initialize alone (the hub's serverInfo,
// TestMCPInitialize): their results carry no _meta.
func TestMCPIdentityOfTheInitializeEras(t *testing.T) {
	h := newMCPHarness(t, Options{Version: "1.2.3"})
	p := &pathPair{t: t}
	for _, version := range append([]string{""}, initializeVersions...) {
		header := bareHeader()
		if version != "" {
			header = sdkClientHeader(version)
		}
		for _, body := range []string{toolCall(toolEventList, `{"limit":1}`), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`} {
			a := p.do(h.url, header, body)
			var result map[string]json.RawMessage
			if r := nodetest.DecodeRPC(t, a.body); r.Error != nil || json.Unmarshal(r.Result, &result) != nil || result["_meta"] != nil {
				t.Errorf("era %q: %.300s", version, a.body)
			}
		}
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
