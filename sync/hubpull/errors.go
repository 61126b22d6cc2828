package hubpull

import "errors"

// Sentinel errors of the HTTP pull and peers.json. Callers test them with
// errors.Is; the texts of a peer's problems say which peer and request.
var (
	// ErrPeersFile marks a peers.json that cannot be used; the text is
	// the Python hub's (LoadPeersFile).
	ErrPeersFile = errors.New("invalid peers file")
	// ErrPeerUnreachable marks a request that got no HTTP answer: refused
	// connection, DNS failure, TLS failure, timeout.
	ErrPeerUnreachable = errors.New("peer unreachable")
	// ErrPeerStatus marks an HTTP answer outside 2xx; StatusError
	// carries the code.
	ErrPeerStatus = errors.New("peer answered an HTTP error")
	// ErrPeerProtocol marks a 2xx answer that is not what the sync
	// protocol says (not JSON, wrong shapes, events of another origin).
	ErrPeerProtocol = errors.New("peer answered outside the sync protocol")
	// ErrResponseTooLarge marks an answer longer than
	// Config.MaxResponseBytes; the rest is not read.
	ErrResponseTooLarge = errors.New("peer response too large")
	// ErrStarted is returned by a second Puller.Start.
	ErrStarted = errors.New("http puller already started")
	// ErrStopped is returned by Start on a stopped Puller.
	ErrStopped = errors.New("http puller stopped")
)
