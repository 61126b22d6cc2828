package httpapi

import (
	"net/http"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// mcpRouteName is the route of the MCP handler.
const mcpRouteName = "/mcp"

// mcpBearerChallenge is the WWW-Authenticate of a 401 on /mcp: MCP
// clients (and the OAuth-aware ones first) read it to learn that the
// node takes a bearer token.
const mcpBearerChallenge = `Bearer realm="lsnode"`

// codeUnauthorized is the JSON-RPC code of a refused token, in the
// range JSON-RPC leaves to servers.
const codeUnauthorized = -32001

// writeMCPUnauthorized answers a request to /mcp without a valid token:
// the hub's 401, with a bearer challenge and a JSON-RPC error instead of
// http.server's HTML page, which MCP clients cannot show.
func writeMCPUnauthorized(w http.ResponseWriter) {
	body, _ := pyjson.Compact(pyjson.Object{ // constant members always encode
		{Key: "jsonrpc", Value: "2.0"},
		{Key: "id", Value: nil},
		{Key: "error", Value: pyjson.Object{
			{Key: "code", Value: codeUnauthorized},
			{Key: "message", Value: "Unauthorized: send the node's token as Authorization: Bearer <token>"},
		}},
	})
	w.Header().Set("WWW-Authenticate", mcpBearerChallenge)
	writeBody(w, http.StatusUnauthorized, contentJSON, body)
}
