package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	segjson "github.com/segmentio/encoding/json"
)

// The MCP client eras the handler tells apart (docs/compatibility.md,
// "MCP client eras"). Versions are dates, so they compare as strings.
const (
	// structuredSince is the first version whose tools have an
	// outputSchema and whose results carry structuredContent.
	structuredSince = "2025-06-18"
	// sessionlessSince is the first version of the sessionless protocol:
	// no initialize, the version and the client's capabilities in every
	// request's _meta, server/discover.
	sessionlessSince = "2026-07-28"
)

// Keys of a request's _meta in the sessionless protocol: its version, and
// the client's capabilities and identity.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// initializeVersions are the versions the initialize handshake
// negotiates, as the Python hub does, newest first: a client's version in
// the list is echoed, any other gets the first.
var initializeVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// protocolVersions are all the versions the server speaks, newest first:
// the sessionless protocol beside the initialize eras.
var protocolVersions = append([]string{sessionlessSince}, initializeVersions...)

// wantsStructured reports whether a client speaking protocol version
// (the MCP-Protocol-Version header, or the request's _meta in the
// sessionless protocol) gets structured results and output schemas: the
// hub's bare clients (no version) and the 2024-11-05 and 2025-03-26 eras
// get the hub's answer, the newer eras also the structured one.
func wantsStructured(version string) bool { return version >= structuredSince }

// requestVersion is the protocol version a request names: its _meta's
// (the sessionless protocol), else its MCP-Protocol-Version header; ""
// for the hub's bare clients, which name none.
func requestVersion(r *http.Request, params json.RawMessage) string {
	if v := metaVersion(params); v != "" {
		return v
	}
	return r.Header.Get("Mcp-Protocol-Version")
}

// metaVersion is the protocol version in params._meta as the SDK reads
// it, so that both paths agree on a request's era: the SDK decodes the
// params' _meta (its key matched exactly, never in another case) and
// finds none when that fails. Only params that name _meta, or hold an
// escape that could spell it, are read: with pyjson's reader when one
// member's key is _meta, which is then the _meta the SDK decodes (a map
// of values that decode: pyjson.BeyondFloat64), and as the SDK decodes them
// otherwise (sdkMetaVersion), since repeated _meta members merge.
func metaVersion(params json.RawMessage) string {
	if !bytes.Contains(params, []byte("_meta")) && !bytes.Contains(params, []byte(`\u`)) {
		return ""
	}
	members, err := jsonText.Members(params)
	if err != nil {
		return "" // null, or not an object: the SDK decodes no _meta either
	}
	var meta json.RawMessage
	for _, m := range members {
		if m.Key != "_meta" {
			continue
		}
		if meta != nil {
			return sdkMetaVersion(params)
		}
		meta = m.Value
	}
	fields, err := jsonText.Members(meta)
	if err != nil || pyjson.BeyondFloat64(meta) {
		return ""
	}
	v, _ := jsonText.Value(fields.Get(metaProtocolVersion))
	s, _ := v.(string)
	return s
}

// sdkMetaVersion is metaVersion by the SDK's own decode of the params:
// segmentio's encoding/json, which go-sdk uses, with struct fields
// matched by their exact name as go-sdk configures it.
func sdkMetaVersion(params json.RawMessage) string {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	dec := segjson.NewDecoder(bytes.NewReader(params))
	dec.DontMatchCaseInsensitiveStructFields()
	if dec.Decode(&p) != nil {
		return ""
	}
	v, _ := p.Meta[metaProtocolVersion].(string)
	return v
}
