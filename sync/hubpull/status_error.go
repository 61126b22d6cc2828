package hubpull

import "fmt"

// StatusError is a non-2xx answer of a peer. Its text is the Python
// hub's urllib text ("<url>: HTTP Error 401: Unauthorized"), plus the
// {"error": msg} the peer sent, if any. It matches ErrPeerStatus.
type StatusError struct {
	URL  string // the request URL, password redacted; never holds the token
	Code int
	Msg  string // the peer's {"error": ...} text, bounded; "" if none
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("%s: HTTP Error %d: %s", e.URL, e.Code, statusText(e.Code))
	if e.Msg != "" {
		s += fmt.Sprintf(" (%q)", e.Msg)
	}
	return s
}

// Is matches ErrPeerStatus.
func (e *StatusError) Is(target error) bool { return target == ErrPeerStatus }
