// Package grpcpeer is the gRPC driver of replication between lsnode
// nodes: it runs the core's Links (package lssync, sync/) over the
// lsnode.v1.Replication Session stream, one stream per connected pair.
//
// # Shape
//
//   - Replicator (replicator.go) owns everything: a dial loop per
//     configured peer (client.go: redial with jittered backoff,
//     keepalive), inbound sessions through RegisterGRPC (server.go), and
//     one Log subscription fanned out for live push to one session per
//     peer (push.go); the commits that add to the Log's artifact feed
//     wake the same sessions, which push the new artifacts.
//   - A session (session.go) drives one Link: a reader feeding a bounded
//     inbox, a writer draining a byte-bounded outbox (outbox.go), and an
//     applier storing the batches the Link queues, in order, several in
//     one transaction when they wait (session_apply.go). The reader
//     verifies a batch's signatures ahead of the loop and the writer signs
//     the own ops of a batch just before it leaves (Integrity.Preverify,
//     Integrity.SignFrame).
//   - status_code.go is the one place that maps errors to gRPC status
//     codes and back; status.go and origin_lag.go make the roster
//     (Peers, Origins); metrics.go and metrics_push.go are the
//     collectors, metrics being the Links' Observer.
//
// # Guarantees
//
//   - Bounded resources: a session queues at most LocalQueue op lists
//     for push, OutboxBytes of frames to send, InboxFrames received
//     frames and 2*PullWindow batches to store. Appends never wait for a
//     peer: the Log's subscription drops a slow reader, the fan-out never
//     blocks on a session, a full session queue drops pushes and asks the
//     peer to pull instead.
//   - A peer that stops reading ends its session after StallTimeout; one
//     that refused (another cluster, version, or itself) is redialled ten
//     times less often; MaxInboundSessions caps what this node serves.
//   - Two nodes that both list each other run two sessions. Each node
//     pushes on one of them only (pushSessions), so no op crosses twice;
//     rounds and pulls run on both.
//
// # Concurrency
//
// Replicator is safe for concurrent use; its goroutines (fan-out, dial
// loops, session readers, writers and appliers) are started through one
// helper and joined by Stop; inbound session loops run on gRPC's handler
// goroutines and are joined too. Lock order: Replicator.mu, then
// outPeer.mu, then outbox.mu; none is held across network I/O or a Log
// call.
package grpcpeer
