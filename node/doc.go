// Package node is the composition root of one lsnode: its Config (one
// sub-config per part, each the part's own type, config.go), its
// lifecycle (New, Start, Shutdown) and the wiring of its parts. It opens
// the store, builds the two surfaces on it - node/httpapi (the HTTP
// routes) and node/mcp (the MCP tools, mounted at POST /mcp) - with
// node/auth's tokens and TLS, starts replication (gRPC), the pull from
// peers.json and membership (gossip, node/membership), and implements
// the small interfaces through which the surfaces read them
// (surfaces.go). It owns every goroutine it starts (Start/Shutdown, one
// WaitGroup) and the Prometheus registry (injected, or made with the Go
// and process collectors).
//
// It holds no route, tool or protocol of its own: those are the
// surfaces'.
//
// Shutdown runs in logged phases: stop accepting and end streams and long
// polls, let in-flight requests finish (until the context expires), stop
// the node's goroutines, close the store.
package node
