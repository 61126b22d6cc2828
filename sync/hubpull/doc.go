// Package hubpull pulls the coordination log from HTTP peers — Python
// mempalace hubs, or other lsnode nodes' HTTP surfaces — listed in the
// Python hub's peers.json, with the hub's own /sync/* protocol. It is the
// lsnode side of a mixed mesh: Python hubs cannot speak the gRPC
// replication of sync/grpcpeer, so lsnode pulls from them as a Python hub
// would, and what it pulls then reaches its gRPC peers like any other op.
//
// # Shape
//
//   - Puller (puller.go) runs rounds: one at Start, then one every
//     Config.Interval. A round re-reads peers.json (peersfile.go, read
//     with the Python hub's JSON rules and error texts: pyjson.Loads)
//     and pulls every peer, at most Config.Parallel at once.
//   - A peer's round (peer.go) reads its version vector, then pages of
//     ops per origin after this node's top, fetching the artifacts they
//     name, and applies each page through Log.ApplyBatch with its ops
//     chained by PrevSeq, so gapped Python origins apply in order.
//   - client.go makes the requests (bounded answers, token kept out of
//     every text), built and read with internal/pyhub/syncwire; status.go
//     keeps each peer's estate entry in the Python shape; metrics.go
//     exports the rounds.
//
// # Configuration
//
// Config takes plain values. The Python hub's MEMPALACE_SYNC_INTERVAL and
// MEMPALACE_SYNC_HTTP_TIMEOUT are read by cmd/lsnode, which passes their
// values through pytime.ParseInterval and pytime.ParseTimeout (the hub's
// lenient float seconds) and on to the node's configuration; nothing here
// reads the environment.
//
// # Guarantees
//
//   - Nothing wedges: a bad op is quarantined by the store and its origin
//     moves on; a missing or corrupt artifact stops its origin for the
//     round only; one peer's failure never touches another's pull.
//   - Tokens never appear in statuses, results, errors, logs or metrics.
//   - Pulled ops carry no signature; with Config.Integrity, ops of
//     origins that sign (a pinned key) are refused, as are all ops when
//     unsigned origins are refused (sync/integrity).
//
// # Concurrency
//
// The loop goroutine (Start) and, during a round, one goroutine per peer
// are joined by Stop (the round's before the round returns). Rounds are
// serial.
package hubpull
