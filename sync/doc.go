// Package lssync is the deterministic core of replication between lsnode
// nodes. The folder is sync/ but the package is lssync so that it never
// shadows the standard library; importers write
//
//	lssync "github.com/lsnode/lsnode/sync"
//
// # Shape
//
// Link is one end of a session: frames, timer ticks and locally committed
// ops go in (each with the caller's wall time), frames come out, and the
// only side effects are reads and idempotent ApplyBatch writes on the Log
// (*store.Store through StoreLog). It opens no socket, starts no
// goroutine and reads no clock, so the seeded simulator in sync/simnet
// can drive many of them over lossy, partitioned links and replay any run
// from its seed. Besides Link the package holds what it needs: the
// version-vector digest (digest.go), the conversion between store ops and
// wire frames (convert.go), the batcher that answers pulls (serve.go) and
// the interfaces it is given: Log (and ArtifactFeed, when the Log keeps
// one), Integrity (sync/integrity) and Observer (its measurements); the
// artifact feed's part of the protocol is in artifact_*.go. internal/importrules holds it to that: it
// imports no net, net/http, os or gRPC package, directly or through what
// it links (the standard library and the store aside), and calls no
// clock and starts no goroutine.
//
// The drivers are packages of their own: sync/grpcpeer runs Links over
// gRPC streams between nodes (dial loops, sessions, push fan-out,
// metrics); sync/hubpull pulls Python hubs over HTTP and does not use
// Link.
//
// # Protocol
//
//  1. Handshake. The dialer sends Hello; the listener checks cluster id,
//     protocol version and that the peer is not itself, then answers Hello
//     echoing the dialer's send time; the dialer measures the clock offset
//     and round trip and sends them back in a third Hello. A peer of
//     another cluster is refused (ErrClusterMismatch, naming both cluster
//     ids) before any op or vector crosses.
//  2. Anti-entropy, digest first. The dialer starts a round every
//     SyncInterval (either end may start one when it suspects a gap): a
//     Digest holds a 16-byte hash of the version vector, so an idle round
//     is two small frames whatever the number of origins. On a mismatch
//     both ends exchange full vectors and each pulls, per origin, the range
//     after its own top, third-party origins included (relay). An end that
//     was following waits one tick first and pulls only what pushes have
//     not brought meanwhile: at a high rate a round always sees ops in
//     flight.
//  3. Pull. A Pull names ranges; the answer is at most PullWindow Batch
//     frames, each bounded by BatchOps and BatchBytes and carrying the
//     artifacts its events name ahead of them. Each batch is applied in one
//     transaction. A link whose driver stores batches behind it
//     (ApplyBehind) decodes and checks the next batch while one commits;
//     the puller asks for the next window when the last batch of the
//     previous one arrives, at most one window ahead of what is stored.
//  4. Push. An end that is caught up says so (follow) in every Digest,
//     DigestReply and Vector; the peer then pushes every op committed
//     locally (its own and relayed ones, Link.Local) that the follower is
//     not known to hold. When a peer starts to follow, it is first sent (at
//     most a batch of) what was committed while it did not, so the pushes
//     after it leave no hole. Every Vector also lists the origins its
//     sender has a session with (direct_origins, Link.SetDirect); their ops
//     are not relayed to it, so in a full mesh each op reaches each node
//     once.
//  5. Artifacts. When both Hellos name the artifact_feed feature, each end
//     reads the other's artifact feed (every artifact the peer holds, in
//     arrival order) after a cursor it keeps per peer: a page names
//     entries without content, the end asks for those it lacks, stores
//     them and then the cursor. Artifacts put on a node are pushed as
//     they commit, and round frames tell each end's feed top, so
//     artifacts replicate without waiting for an event to name them
//     (artifact_feed.go).
//
// # Guarantees
//
//   - Convergence: once two connected nodes stop receiving new ops, a
//     round finds every difference and the pulls close it; with any
//     connected topology every node ends with the same op set, and, when
//     every node keeps an artifact feed, the same artifact set.
//   - Safety under loss, duplication and reordering: every frame is either
//     idempotent (batches, vectors) or tagged with a round or pull id and
//     ignored when stale; the Log applies an op only when it extends the
//     origin's prefix (PrevSeq), so no order of arrival creates a hole.
//   - Bounded work: one round, one pull and one page of the artifact feed
//     in flight per link; a pull answer holds at most PullWindow batches
//     and about PullWindow*BatchBytes, as does the answer to an artifact
//     get, and a puller holds at most two windows not yet stored.
//   - Clock offset: measured at the handshake and every round; beyond
//     MaxClockOffset it is logged, given to the Observer and shown in
//     LinkStatus. The ops are stored anyway and the local clock is never
//     moved here (the store's HLC bounds what a remote stamp may do).
//
// # Hazards
//
//   - Push is best effort. A dropped push is repaired by the next round,
//     so SyncInterval bounds how long a gap can last on an idle session.
//   - An origin whose next op is quarantined at the receiver (a conflict)
//     stops advancing there, by the store's prefix rule; other origins go
//     on. The range is offered again every round until an operator acts.
//   - The offset estimate is off by up to half the round trip.
//
// # Concurrency
//
// A Link is not safe for concurrent use: one goroutine (a session loop, or
// the simulator) drives it. A driver that stores batches on another
// goroutine (ApplyBehind) only takes them from the Link (TakeQueued) and
// hands the results back on the Link's goroutine (Stored).
package lssync
