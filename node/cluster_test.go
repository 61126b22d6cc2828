package node

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// TestGRPCServer_HandshakeTimeout: an inbound replication connection
// that never sends its HTTP/2 preface is closed after the handshake
// timeout.
func TestGRPCServer_HandshakeTimeout(t *testing.T) {
	n := htStart(t, func(c *Config) {
		c.Replication.Addr = "127.0.0.1:0"
		c.Replication.HandshakeTimeout = 200 * time.Millisecond
	})
	conn, err := net.Dial("tcp", n.cluster.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second)) // half the default timeout
	_, err = io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("a silent replication connection was held for 5 s")
	}
}
