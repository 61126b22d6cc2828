package mcp

import (
	"sync"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// protocolTexts are the strings every request repeats - the JSON-RPC
// envelope's keys and values, the method and tool names, the tools'
// argument names, the sessionless protocol's _meta keys - so that
// reading a request takes them from here instead of allocating a copy of
// each.
var protocolTexts = sync.OnceValue(func() map[string]string {
	texts := map[string]string{}
	for _, s := range []string{
		"jsonrpc", "2.0", "id", "method", "params", "name", "arguments", "_meta",
		"initialize", "ping", "tools/list", "tools/call", transportOnlyArg,
		metaProtocolVersion, metaClientCapabilities, metaClientInfo, sessionlessSince,
	} {
		texts[s] = s
	}
	for _, spec := range catalog() {
		texts[spec.name] = spec.name
		for _, p := range spec.props {
			texts[p.name] = p.name
		}
	}
	return texts
})

// internText returns b as a string, without a copy when it is one of the
// protocol's texts.
func internText(b []byte) string {
	if s, ok := protocolTexts()[string(b)]; ok {
		return s
	}
	return string(b)
}

// jsonText reads the request path's JSON texts - the envelope, the params,
// a call's arguments - with pyjson's scanner, taking the protocol's texts
// from protocolTexts.
var jsonText = pyjson.Reader{Intern: internText}

// argText reads a call's argument values as jsonText does, but for an
// escaped UTF-16 surrogate that is not half of a pair ("a\udcffb"), which
// it keeps as Python's json.loads does (pyjson.Reader.LoneSurrogates),
// where encoding/json makes it U+FFFD. The rules read such bytes as
// Python's lone surrogate: stored text gets U+FFFD (as the hub's
// strip_lone_surrogates does) and an error quoting the value shows
// \udcff (as the hub's repr does).
var argText = pyjson.Reader{Intern: internText, LoneSurrogates: true}
