// Package fakehub is a test double of the Python mempalace hub's
// replication surface (docs/compatibility.md), written in Go for lsnode's
// tests. Production code never imports it. Its /sync/* requests and
// answers are internal/pyhub/syncwire's, as node/httpapi's and
// sync/hubpull's are.
//
// A Hub keeps the Python hub's tables in memory (events with their local
// rowid, artifacts, event_artifacts links) and behaves as the hub does:
//
//   - local writes number their ops with the shared rowid, so the hub's
//     own origin has gaps once it applies remote events;
//   - ApplyRemote and ApplyRemoteArtifact follow apply_remote_event and
//     apply_remote_artifact: required truthy fields, echo and duplicate
//     checks, artifacts before events, sha256 verification, and nothing
//     else validated (a type "Task.Request" is stored);
//   - ImportPreReplication stores events the way a pre-replication hub
//     did and then runs the backfill migration (origin = this hub,
//     origin_seq = rowid, hlc from created_at);
//   - Handler serves GET /sync/version_vector, /sync/ops, /sync/artifact
//     and /sync/peers with the hub's shapes, key order, paging (after,
//     limit clamped to 500), 400 texts (including Python's int() message),
//     401 and 404 HTML pages, and the 404 JSON for an unknown artifact;
//   - SyncWithPeer is the hub's pull engine (logsync.sync_with_peer): it
//     pulls another hub, or an lsnode node, into this one exactly as a
//     Python hub would, which is how tests check lsnode's serving routes.
//
// Seeding helpers (InsertRaw, DropArtifact, TamperArtifact) produce what
// real hubs contain but the happy path never makes: events with a
// missing hlc, events whose artifact is gone, artifacts whose content no
// longer matches their sha256.
//
// Time comes from an injected hlc.WallClock and ids from a seeded random
// source, so a seeded hub is reproducible.
package fakehub
