package lssync

import "errors"

// Sentinel errors. Callers test them with errors.Is; a driver maps them to
// its transport's terms (sync/grpcpeer: status codes).
var (
	// ErrClusterMismatch refuses a peer that belongs to another cluster.
	ErrClusterMismatch = errors.New("cluster id mismatch")
	// ErrProtocolVersion refuses a peer that speaks another protocol version.
	ErrProtocolVersion = errors.New("unsupported protocol version")
	// ErrSelfConnection refuses a session whose peer is this replica.
	ErrSelfConnection = errors.New("connected to self")
	// ErrProtocol marks a frame that breaks the session protocol (data
	// before the handshake, an empty frame, a malformed field).
	ErrProtocol = errors.New("protocol violation")
	// ErrHandshakeTimeout ends a session whose handshake did not complete
	// within Config.RoundTimeout.
	ErrHandshakeTimeout = errors.New("handshake timed out")
	// ErrInvalidConfig marks a Config that Validate refused; the drivers'
	// and origin integrity's configurations wrap it too.
	ErrInvalidConfig = errors.New("invalid sync config")
)
