package lssync

import "fmt"

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
