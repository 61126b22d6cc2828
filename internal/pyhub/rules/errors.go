package rules

import (
	"errors"
	"fmt"
)

// Sentinel errors; test them with errors.Is.
var (
	// ErrInvalid marks a value refused by a rule. The *Error that wraps it
	// carries the Python hub's exact text.
	ErrInvalid = errors.New("invalid value")
)

// Error is a refused value. Its text is the Python hub's ValueError text,
// which clients match on, so it must not change.
type Error struct {
	msg string
}

func (e *Error) Error() string { return e.msg }

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *Error) Unwrap() error { return ErrInvalid }

// invalidf builds an *Error from a format and arguments.
func invalidf(format string, args ...any) error {
	return &Error{msg: fmt.Sprintf(format, args...)}
}
