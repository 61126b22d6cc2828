package hlc

import (
	"errors"

	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
)

// Sentinel errors. Callers test them with errors.Is.
var (
	// ErrInvalidStamp marks a string that is not a valid HLC stamp. The
	// error returned by Parse wraps it and its text is the Python hub's
	// ValueError text, "not a valid HLC string: <repr>".
	ErrInvalidStamp = errors.New("not a valid HLC string")
)

// parseError is the error Parse returns: the Python hub's text, wrapping
// ErrInvalidStamp. The repr is rendered only when the text is asked for.
type parseError struct {
	input string
}

func (e *parseError) Error() string {
	return "not a valid HLC string: " + pyrepr.String(e.input)
}

// Unwrap lets errors.Is match ErrInvalidStamp.
func (e *parseError) Unwrap() error { return ErrInvalidStamp }
