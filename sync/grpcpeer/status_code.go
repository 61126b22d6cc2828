package grpcpeer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	lssync "github.com/lsnode/lsnode/sync"
)

// toStatus maps a session error to the gRPC status the listener returns.
// This and fromStatus are the only places that know gRPC codes.
func toStatus(err error) error {
	var code codes.Code
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return nil
	case errors.Is(err, lssync.ErrClusterMismatch), errors.Is(err, lssync.ErrProtocolVersion), errors.Is(err, lssync.ErrSelfConnection):
		code = codes.FailedPrecondition
	case errors.Is(err, lssync.ErrProtocol):
		code = codes.InvalidArgument
	case errors.Is(err, ErrTooManySessions):
		code = codes.ResourceExhausted
	case errors.Is(err, ErrStalled), errors.Is(err, lssync.ErrHandshakeTimeout):
		code = codes.DeadlineExceeded
	case errors.Is(err, ErrStopped), errors.Is(err, context.Canceled):
		code = codes.Unavailable
	default:
		code = codes.Internal
	}
	return status.Error(code, err.Error())
}

// fromStatus maps an error from a stream back into this package's terms:
// a refusal becomes ErrRefused with the peer's reason.
func fromStatus(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.FailedPrecondition:
		return fmt.Errorf("%w: %s", ErrRefused, st.Message())
	case codes.InvalidArgument:
		return fmt.Errorf("%w: peer says: %s", lssync.ErrProtocol, st.Message())
	case codes.ResourceExhausted:
		return fmt.Errorf("%w: peer says: %s", ErrTooManySessions, st.Message())
	case codes.Unavailable:
		if isTLSFailure(st.Message()) {
			return fmt.Errorf("%w: %s", ErrTLS, st.Message())
		}
	}
	return err
}

// isTLSFailure tells a connection that failed in TLS from one that was
// merely unreachable. gRPC gives only text: its own prefix for a failed
// handshake, or crypto/tls's "tls: " (a certificate the peer refused,
// reported on the first read after a TLS 1.3 handshake).
func isTLSFailure(msg string) bool {
	return strings.Contains(msg, "authentication handshake failed") || strings.Contains(msg, "tls: ")
}
