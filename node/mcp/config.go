package mcp

import "errors"

// DefaultMaxRequestBytes is the hub's request size limit (its
// _HTTP_MAX_REQUEST_BYTES, 16 MiB).
const DefaultMaxRequestBytes = 16 << 20

// Config is what an operator sets of the MCP tools (node.Config.MCP).
// Start from DefaultConfig; the node calls Validate. The tools' wait cap
// and write deadline are the HTTP surface's (its MaxLongPoll and
// WriteTimeout), which the node gives in Options.
type Config struct {
	// ReadOnly hides the writers from tools/list and refuses them with
	// the hub's -32003 error. The read tools are unaffected, and the node
	// still applies what replication brings, as the Python hub does.
	ReadOnly bool
	// MaxRequestBytes bounds a request body: a larger one gets 413 with
	// the hub's JSON-RPC "Request too large". Default 16 MiB, the hub's
	// limit; NewHandler reads 0 as the default.
	MaxRequestBytes int64
}

// DefaultConfig returns the hub's settings: writable, 16 MiB bodies.
func DefaultConfig() Config {
	return Config{MaxRequestBytes: DefaultMaxRequestBytes}
}

// Validate reports the first problem of c.
func (c Config) Validate() error {
	if c.MaxRequestBytes <= 0 {
		return errors.New("config: MaxRequestBytes must be positive")
	}
	return nil
}
