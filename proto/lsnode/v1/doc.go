// Package lsnodev1 is the generated Go code for lsnode's node-to-node
// protocol (replication.proto): the Replication service, whose Session
// stream carries Hello, Digest, DigestReply, Vector, Pull and Batch frames.
// Everything here except this file is generated; see ../../gen.go.
package lsnodev1
