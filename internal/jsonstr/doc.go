// Package jsonstr writes a string as a JSON string literal exactly as
// encoding/json writes a Go string, with or without its HTML escaping,
// without encoding/json's reflection and buffers: the store renders its
// event rows with it, and the MCP handler the JSON-RPC frames the go-sdk
// would write. (The Python hub's string form, json.dumps's, is
// internal/pyhub/pyjson's.)
package jsonstr
