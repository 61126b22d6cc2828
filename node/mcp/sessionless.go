package mcp

import (
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// The tools/calls of the sessionless protocol (2026-07-28) that the
// native path answers, and the frame of their answers. A request of that
// protocol names its version twice (the Mcp-Protocol-Version header and
// its _meta), its method and tool in the Mcp-Method and Mcp-Name headers,
// and the client's capabilities and identity in its _meta; the SDK
// refuses a request where these disagree or do not decode, and annotates
// every result with the server's identity and "resultType": "complete".

// sessionlessClient is a request's _meta as the SDK checks it in the
// sessionless protocol: the client's capabilities and identity, decoded
// into the SDK's own types. (The SDK's capabilities type of that
// protocol holds roots by pointer; a pointer and a struct refuse the
// same texts.)
type sessionlessClient struct {
	Capabilities *gosdk.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
	Info         *gosdk.Implementation     `json:"io.modelcontextprotocol/clientInfo"`
}

// sessionlessCall reports whether req, a tools/call sent with the
// sessionless protocol's version header, is one the SDK answers as the
// native path does:
//
//   - its params hold only name, arguments and _meta, and the _meta only
//     the protocol version (the header's), the client's capabilities and
//     optionally its identity: any other member (a progressToken, a log
//     level) is the SDK's to read;
//   - the Mcp-Method and Mcp-Name headers name tools/call and the tool;
//   - the SDK decodes the arguments (no number beyond float64) and the
//     capabilities and identity (neither null nor of another shape).
func sessionlessCall(r *http.Request, req rpcRequest) bool {
	if !onlyKeys(req.params, "name", "arguments", "_meta") ||
		r.Header.Get("Mcp-Method") != "tools/call" || r.Header.Get("Mcp-Name") != req.tool ||
		pyjson.BeyondFloat64(req.params.Get("arguments")) {
		return false
	}
	raw := req.params.Get("_meta")
	meta, err := jsonText.Members(raw)
	if err != nil || !onlyKeys(meta, metaProtocolVersion, metaClientCapabilities, metaClientInfo) ||
		!isString(meta.Get(metaProtocolVersion), sessionlessSince) {
		return false
	}
	var client sessionlessClient
	if json.Unmarshal(raw, &client) != nil || client.Capabilities == nil {
		return false
	}
	return meta.Get(metaClientInfo) == nil || client.Info != nil
}

// serverMeta is a result's _meta in the sessionless protocol, as the SDK
// writes it: the server's identity under
// io.modelcontextprotocol/serverInfo.
func serverMeta(impl *gosdk.Implementation) []byte {
	data, _ := json.Marshal(gosdk.Meta{gosdk.MetaKeyServerInfo: impl}) // strings only: it always encodes
	return data
}

// sessionlessErrorStatus is the HTTP status of a tool's JSON-RPC error
// in the sessionless protocol: 400 for invalid params, as the
// specification requires and the SDK sends; 200 for the others the tools
// answer (-32000, -32003).
func sessionlessErrorStatus(err *jsonrpc.Error) int {
	if err.Code == jsonrpc.CodeInvalidParams {
		return http.StatusBadRequest
	}
	return http.StatusOK
}
