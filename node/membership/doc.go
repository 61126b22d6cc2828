// Package membership keeps a node's view of its cluster with
// hashicorp/memberlist (SWIM gossip, failure detection), following serf's
// pattern: memberlist is wrapped, its delegates are unexported adapters
// that never block its loops, and the node sees only a small Handler.
//
// What it does:
//   - Each node announces Meta (replica id, cluster id, gRPC and HTTP
//     addresses, version) in a versioned compact encoding (meta.go) checked
//     against memberlist.MetaMaxSize before it is announced.
//   - A node announcing another cluster id, or metadata this build cannot
//     decode, is refused by memberlist's Alive and Merge delegates: it
//     never becomes a member, and it is listed as refused in Members().
//   - Changes reach the Handler (PeerUp, PeerDown, PeerRefused) from one
//     owned goroutine fed by a bounded queue. A full queue drops and counts
//     events; a periodic reconciliation with Members() delivers what was
//     dropped, so the Handler converges on the true state.
//   - A Join that reaches none of its seeds (nodes started together, a
//     seed not up yet) is retried after 200 ms, then after twice as long
//     each time up to RejoinInterval, until it reaches one or another
//     member joins this node; JoinStatus shows it pending, with the seeds
//     and the last error (join.go).
//   - Peers seen alive are kept in <DataDir>/lsnode-peers.json (atomic
//     writes) and joined again at start and every RejoinInterval while
//     some are not alive, so a partition longer than memberlist's reap time
//     heals with no operator.
//   - Gossip is encrypted and authenticated with an AES keyring when one is
//     given (LoadKeyringFile); a node with another key cannot join.
//   - The keyring rotates while running, cluster-wide (KeyOperation:
//     list, install, use, remove), as serf's key queries do: the node
//     applies the operation, saves its keyring file atomically, and sends
//     the request to every member that is up as a memberlist user message
//     (encrypted with the current key), collecting their replies within
//     Config.KeyReplyTimeout (keyops.go, keymsg.go).
//   - Failure detection is tuned for a crashed node to be declared dead in
//     under 4 s on small clusters while a 2 s stall is not (tuning.go).
//
// Goroutines: besides memberlist's own, a Membership runs three started
// in Create: the events goroutine (Handler calls, reconciliation, known
// peers file), the rejoin goroutine and the keyring goroutine (applies
// and answers other members' key requests); and, from a Join that reached
// no seed until an attempt reaches one, the join retry goroutine
// (join.go). Shutdown joins them all. A
// KeyOperation runs in its caller's goroutine plus one send goroutine per
// member, joined before it returns; Shutdown waits for it.
//
// Lock order: Membership.lifecycle, then memberlist's locks, then
// table.mu, Membership.metaMu or Membership.seedsMu. Keyring operations:
// Membership.opMu, then Membership.keyMu, then memberlist's keyring lock
// (lifecycle is only held briefly before, never with them). The delegates run under memberlist's
// node lock and take only table.mu or metaMu, briefly; nothing holding
// table.mu or metaMu calls into memberlist or the Handler.
//
// Shutdown order: Leave (announces the departure, so the others mark the
// node left rather than dead), then Shutdown.
package membership
