package lssync

import "errors"

// Sentinel errors. Callers test them with errors.Is; the gRPC boundary maps
// them to status codes in one place (grpc_status.go).
var (
	// ErrClusterMismatch refuses a peer that belongs to another cluster.
	ErrClusterMismatch = errors.New("cluster id mismatch")
	// ErrProtocolVersion refuses a peer that speaks another protocol version.
	ErrProtocolVersion = errors.New("unsupported protocol version")
	// ErrSelfConnection refuses a session whose peer is this replica.
	ErrSelfConnection = errors.New("connected to self")
	// ErrRefused marks a session the peer refused at the handshake; the
	// error text carries the peer's reason.
	ErrRefused = errors.New("peer refused the session")
	// ErrTLS marks a connection whose TLS handshake failed: a peer
	// certificate refused by either side (mutual TLS, see the node's
	// --tls-ca), or TLS spoken to a plaintext peer. The peer is shown as
	// refused until a session succeeds.
	ErrTLS = errors.New("TLS handshake failed")
	// ErrProtocol marks a frame that breaks the session protocol (data
	// before the handshake, an empty frame, a malformed field).
	ErrProtocol = errors.New("protocol violation")
	// ErrHandshakeTimeout ends a session whose handshake did not complete
	// within Config.RoundTimeout.
	ErrHandshakeTimeout = errors.New("handshake timed out")
	// ErrStalled ends a session whose peer stopped reading for longer than
	// Config.StallTimeout.
	ErrStalled = errors.New("peer stalled")
	// ErrTooManySessions refuses an inbound session while
	// Config.MaxInboundSessions are being served; the dialer retries.
	ErrTooManySessions = errors.New("too many replication sessions")
	// ErrStopped is returned by calls on a stopped Replicator.
	ErrStopped = errors.New("replicator stopped")
	// ErrInvalidConfig marks a Config that Validate refused.
	ErrInvalidConfig = errors.New("invalid sync config")
)
