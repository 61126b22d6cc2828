// Package datadir guards a node's data dir so that one process at a time
// uses it.
//
// A data dir holds one replica: its id (replica.json), its signing key
// (node.key) and its log. Two processes on one dir would be two writers
// claiming the same replica id, and so the same origin sequence, which is
// the worst fault a multi-master log can have; SQLite alone does not stop
// it (WAL mode lets a second process open the database and fail only on
// its first append). Every command that opens a data dir takes its lock
// first, before it creates or opens anything in it: serve for its whole
// run, and a command that works on a stopped node's files for as long as
// it works on them.
//
// The lock is flock(2) on DIR/LOCK (LockFileEx on Windows), exclusive and
// non-blocking, held on an open file description for as long as the
// holder runs. The kernel releases it when the process dies, however it
// dies: a kill -9 leaves no stale lock, so no pid check, no timeout and no
// manual clean-up is needed before a restart. The file itself stays
// (removing it on release would let two processes lock two different
// files under one name); what it holds, the holder's pid and HTTP address
// as JSON, is only information, read to tell the process that was
// refused who holds the dir.
package datadir
