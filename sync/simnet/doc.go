// Package simnet is test support for package sync (imported as lssync):
// MemLog, an in-memory coordination log with the store's apply semantics,
// and Network, a seeded discrete-event simulator that drives lssync.Link
// cores over partitionable links that drop, duplicate, reorder and delay
// frames. Nothing here touches a socket, starts a goroutine or reads the
// real clock, so a run is fully determined by its seed. Production code
// never imports this package.
package simnet
