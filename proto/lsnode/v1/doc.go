// Package lsnodev1 is the generated Go code for the messages of lsnode's
// node-to-node protocol (replication.proto): the Hello, Digest,
// DigestReply, Vector, Pull and Batch frames of a replication session. The
// Replication service that carries them is in lsnodev1grpc. Everything
// here except this file is generated; see ../../gen.go.
package lsnodev1
