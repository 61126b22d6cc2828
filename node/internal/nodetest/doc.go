// Package nodetest holds the test helpers that the tests of node and of
// its surfaces (node/httpapi, node/mcp) and auth share: HTTP requests to
// a served surface, SSE streams, metric sums, a store in a temp dir, the
// tokens file of the token tests, JSON-RPC answers of tool calls, and the
// CPU meter of the benchmarks. Polling with a deadline is
// internal/testwait's.
//
// It holds no fake of a node part and no test of its own, and it imports
// none of node's packages, so that any of their tests can import it.
package nodetest
