package store

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers test them with errors.Is; the messages that
// clients see come from the wrapping ValidationError.
var (
	// ErrInvalid marks a request refused by validation. The error text is
	// the Python hub's ValueError text, which clients match on.
	ErrInvalid = errors.New("invalid request")
	// ErrNotFound marks a lookup of an id this replica does not hold.
	ErrNotFound = errors.New("not found")
	// ErrCursorNotHeld marks a since_event_id this replica does not hold
	// yet; the same cursor may succeed later, once replication brings it.
	ErrCursorNotHeld = errors.New("cursor not held")
	// ErrReadOnly marks a write refused because the store is read-only.
	ErrReadOnly = errors.New("store is read-only")
	// ErrClosed marks a call on a closed store.
	ErrClosed = errors.New("store is closed")
	// ErrCorruptReplica marks a replica.json that cannot be trusted.
	ErrCorruptReplica = errors.New("corrupt replica identity")
)

// ValidationError carries the exact text of a refused request and the
// sentinel it belongs to (ErrInvalid, ErrNotFound or ErrCursorNotHeld).
type ValidationError struct {
	Msg  string
	Kind error
}

func (e *ValidationError) Error() string { return e.Msg }

// Unwrap lets errors.Is match the sentinel.
func (e *ValidationError) Unwrap() error { return e.Kind }

// invalidf builds a validation error with a Python-compatible message.
func invalidf(format string, args ...any) error {
	return &ValidationError{Msg: fmt.Sprintf(format, args...), Kind: ErrInvalid}
}

// notFound builds a not-found error with the hub's text (rules).
func notFound(msg string) error {
	return &ValidationError{Msg: msg, Kind: ErrNotFound}
}
