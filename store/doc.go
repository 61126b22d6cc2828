// Package store is the coordination log on SQLite: the Python hub's tables
// (events, artifacts, event_artifacts) plus lsnode's additive lsnode_*
// tables, local writes with the hub's validation rules and error texts,
// reads (list, wait, owed), the version vector, op ranges per origin, and
// the idempotent, validated apply of remote batches.
//
// The package knows nothing of networks: no HTTP, no gRPC. Callers pass
// time in through an hlc.WallClock.
//
// Guarantees (see docs/architecture.md#invariants):
//   - Every origin's ops are held as a prefix in origin order. A remote op is
//     applied only when it extends that prefix (its PrevSeq equals the held
//     top), so a hole is never created; a skipped op is fetched again later.
//   - Local ops are numbered 1, 2, 3, ... with no gaps.
//   - Applying a batch twice changes nothing; a different op in a held slot
//     is quarantined, never overwritten and never silently dropped.
//   - All local writes go through one writer goroutine that groups
//     concurrent requests into one transaction (group commit); a request
//     that fails after writing rolls the batch back and the batch runs again
//     with a savepoint per request, so one caller's failure never fails
//     another (writer.go).
//     Requests queued while a batch runs join it before its commit.
//   - Owed rows lag the log (owedlag.go): the writer writes those of
//     thousands of events at once, after a commit whose callers it has
//     answered, and Owed derives the rows not written yet from the events
//     themselves, so its answer never depends on the lag.
//   - HLC stamps are issued inside the writer, so hlc order and local
//     origin_seq order agree.
//
// Coordination views, each derived from the op set alone
// (docs/architecture.md, Coordination views): Awaiting (the asks an agent
// wrote that are still owed, awaiting.go), claims and their conflicts on
// owed asks (claims.go, progress.go), wait-for cycles (cycles.go,
// waitgraph.go) and full-text Search (search.go, search_query.go, over
// the FTS5 index of search_index.go).
//
// Reads: List answers from an in-memory cache of the log's newest events
// (tailcache.go; fed by the writer at every commit, warmed from the file at
// Open, bounded by Config.TailCacheBytes) only when it can prove the page
// equals the SQL answer, and reads SQL otherwise.
//
// Lock order: Store.mu (in-memory version vector) is never held across a
// database call, then tailCache.mu; the writer goroutine is the only writer
// connection.
package store
