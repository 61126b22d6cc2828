// Package auth holds who may do what on a node, for both of its surfaces
// (node/httpapi and node/mcp) and for replication:
//
//   - the shared token and the agent tokens of the tokens file (format,
//     checks, reload), and the Authenticator that tells a request's
//     Identity from its Authorization header;
//   - the Identity itself: the names it may write as (write_as) and the
//     store scope of its reads, carried on the request's context;
//   - TLS: the HTTPS key pair, the mutual TLS of replication (PeerTLS),
//     and the mesh CA the pull from peers.json trusts, each read again
//     when its files change (tls_reload.go).
//
// It does not hold the HTTP request policy (Host pin, Origin, the order
// of the checks and the refusal pages, node/httpapi), nor what a tool
// does with an identity (node/mcp). It imports neither surface.
package auth
