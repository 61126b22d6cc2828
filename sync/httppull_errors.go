package lssync

import (
	"errors"
	"fmt"
)

// Sentinel errors of the HTTP puller and peers.json. They live beside the
// package's other sentinels (errors.go) in spirit; callers test them with
// errors.Is.
var (
	// ErrPeersFile marks a peers.json that cannot be used; the text is
	// the Python hub's (LoadPeersFile).
	ErrPeersFile = errors.New("invalid peers file")
	// ErrPeerUnreachable marks a request that got no HTTP answer: refused
	// connection, DNS failure, TLS failure, timeout.
	ErrPeerUnreachable = errors.New("peer unreachable")
	// ErrPeerStatus marks an HTTP answer outside 2xx; HTTPStatusError
	// carries the code.
	ErrPeerStatus = errors.New("peer answered an HTTP error")
	// ErrPeerProtocol marks a 2xx answer that is not what the sync
	// protocol says (not JSON, wrong shapes, events of another origin).
	ErrPeerProtocol = errors.New("peer answered outside the sync protocol")
	// ErrResponseTooLarge marks an answer longer than
	// HTTPPullConfig.MaxResponseBytes; the rest is not read.
	ErrResponseTooLarge = errors.New("peer response too large")
	// ErrPullerStarted is returned by a second HTTPPuller.Start.
	ErrPullerStarted = errors.New("http puller already started")
)

// HTTPStatusError is a non-2xx answer of a peer. Its text is the Python
// hub's urllib text ("<url>: HTTP Error 401: Unauthorized"), plus the
// {"error": msg} the peer sent, if any. It matches ErrPeerStatus.
type HTTPStatusError struct {
	URL  string // the request URL, password redacted; never holds the token
	Code int
	Msg  string // the peer's {"error": ...} text, bounded; "" if none
}

func (e *HTTPStatusError) Error() string {
	s := fmt.Sprintf("%s: HTTP Error %d: %s", e.URL, e.Code, statusText(e.Code))
	if e.Msg != "" {
		s += fmt.Sprintf(" (%q)", e.Msg)
	}
	return s
}

// Is matches ErrPeerStatus.
func (e *HTTPStatusError) Is(target error) bool { return target == ErrPeerStatus }
