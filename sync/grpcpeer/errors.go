package grpcpeer

import "errors"

// Sentinel errors of the driver, beside the core's (lssync.ErrClusterMismatch
// and the others). Callers test them with errors.Is; status_code.go maps
// both to gRPC status codes and back.
var (
	// ErrRefused marks a session the peer refused at the handshake; the
	// error text carries the peer's reason.
	ErrRefused = errors.New("peer refused the session")
	// ErrTLS marks a connection whose TLS handshake failed: a peer
	// certificate refused by either side (mutual TLS, see the node's
	// --tls-ca), or TLS spoken to a plaintext peer. The peer is shown as
	// refused until a session succeeds.
	ErrTLS = errors.New("TLS handshake failed")
	// ErrStalled ends a session whose peer stopped reading for longer than
	// Config.StallTimeout.
	ErrStalled = errors.New("peer stalled")
	// ErrTooManySessions refuses an inbound session while
	// Config.MaxInboundSessions are being served; the dialer retries.
	ErrTooManySessions = errors.New("too many replication sessions")
	// ErrStopped is returned by calls on a stopped Replicator.
	ErrStopped = errors.New("replicator stopped")
)
