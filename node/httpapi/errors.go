package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/store"
)

// errorStatus maps an error of the store (or of a route's own parsing) to
// the HTTP status and the text a client sees. It is the one place where
// errors become HTTP; unexpected errors get a generic text (the cause is
// logged, never sent).
func errorStatus(err error) (int, string) {
	var ve *store.ValidationError
	switch {
	case errors.As(err, &ve) && errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, ve.Msg
	case errors.As(err, &ve):
		// ErrInvalid and ErrCursorNotHeld: the Python hub answers 400.
		return http.StatusBadRequest, ve.Msg
	case errors.Is(err, store.ErrInvalid), errors.Is(err, store.ErrCursorNotHeld):
		return http.StatusBadRequest, err.Error()
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, err.Error()
	case errors.Is(err, store.ErrNoSpace):
		return http.StatusInsufficientStorage, err.Error()
	case errors.Is(err, store.ErrClosed), errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable, "lsnode is shutting down"
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "request timed out"
	}
	return http.StatusInternalServerError, "internal error"
}

// writeError answers err as {"error": msg} with the status errorStatus
// picks, logging unexpected errors with the route.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	status, msg := errorStatus(err)
	if status == http.StatusInternalServerError {
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, status, syncwire.ErrorAnswer(msg))
}

// invalid builds a 400 refusal with an exact client-facing text, for the
// routes' own parameter checks.
func invalid(msg string) error {
	return &store.ValidationError{Msg: msg, Kind: store.ErrInvalid}
}
