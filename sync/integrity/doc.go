// Package integrity is origin integrity: Integrity signs this node's own
// ops as they are served (sync/opsig), pins each origin's public key the
// first time it is seen (trust on first use, kept by the store), and
// checks every received op against its origin's pinned key before it is
// applied. An op that fails is refused with a store.Refusal, so the store
// quarantines it without consuming its slot and the genuine op still
// applies when an honest peer brings it.
//
// Integrity implements lssync.Integrity: the replication core calls it
// from its Links (handshake, batches in, batches out), the gRPC driver
// (sync/grpcpeer) runs its Preverify and SignFrame on a session's reader
// and writer, and the HTTP puller (sync/hubpull) checks pulled ops, which
// never carry a signature, with Check.
//
// # Concurrency
//
// One Integrity is shared by every session and the puller and is safe for
// concurrent use. Signing and verification run on up to GOMAXPROCS
// goroutines per call (parallel), started and joined inside the call. Own
// signatures are cached (sigCache) so an op served to several peers is
// signed once; per-origin verifiers precompute their key's multiples.
package integrity
