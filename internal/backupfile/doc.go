// Package backupfile is the file format of an lsnode backup
// (docs/operations.md, "The backup file"): a tar stream (GNU format, so
// every header is one 512-byte block whatever the sizes) of the log
// database, then the node's signing key when the backup carries the
// identity, then manifest.json, which describes the backup and holds the
// size and sha256 of every file before it. The manifest comes last so a
// backup is written in one pass over the database; a reader verifies
// each file against it and accepts nothing else in the stream.
package backupfile
