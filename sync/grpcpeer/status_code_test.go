package grpcpeer

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A connection that failed in TLS shows the peer as refused, with gRPC's
// text kept; a peer that is merely unreachable stays in backoff.
func TestFromStatus_TLSFailureIsRefused(t *testing.T) {
	cases := []struct {
		msg  string
		want string
	}{
		{`connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate signed by unknown authority"`, StateRefused},
		{`connection error: desc = "transport: authentication handshake failed: TLS handshake with 127.0.0.1:1: remote error: tls: bad certificate"`, StateRefused},
		{`connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`, StateBackoff},
	}
	for _, tc := range cases {
		err := fromStatus(status.Error(codes.Unavailable, tc.msg))
		if got := endReason(err); got != tc.want {
			t.Errorf("endReason(%q) = %s, want %s", tc.msg, got, tc.want)
		}
		if tc.want == StateRefused && (!errors.Is(err, ErrTLS) || err.Error() != "TLS handshake failed: "+tc.msg) {
			t.Errorf("fromStatus(%q) = %v, want ErrTLS with the text", tc.msg, err)
		}
	}
}
