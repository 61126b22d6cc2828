package auth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	"google.golang.org/grpc/credentials"
)

// PeerTLS is the mutual TLS of replication (--tls-ca): every node
// presents the key pair of --tls-cert/--tls-key, the same pair HTTPS
// serves, and accepts a peer, dialing or dialed, only when its
// certificate chains to the CA of --tls-ca. A dialing node also checks
// that the certificate names the address it dialed (its gRPC advertise
// address), as any TLS client does.
//
// The three files are checked at every handshake (one stat each) and read
// again when one changed (tls_reload.go), so a renewed certificate or CA
// takes effect without a restart; a file that cannot be read then keeps
// the previous contents in use and is logged.
type PeerTLS struct {
	files    *reloading[peerMaterial]
	log      *slog.Logger
	failures *prometheus.CounterVec // by side
}

// peerMaterial is what the three files hold.
type peerMaterial struct {
	cert *tls.Certificate
	pool *x509.CertPool
}

// NewPeerTLS reads the files of c's mutual TLS once (the key pair of
// TLSCertFile/TLSKeyFile and the mesh CA of TLSCAFile); an error here
// stops the node.
func NewPeerTLS(c Config, log *slog.Logger, reg prometheus.Registerer) (*PeerTLS, error) {
	t := &PeerTLS{log: log.With("component", "replication-tls")}
	files, err := newReloading("replication TLS", t.log, func() (peerMaterial, error) {
		cert, err := tls.LoadX509KeyPair(c.TLSCertFile, c.TLSKeyFile)
		if err != nil {
			return peerMaterial{}, fmt.Errorf("replication TLS: load --tls-cert/--tls-key: %w", err)
		}
		pool, err := LoadCAPool(c.TLSCAFile)
		if err != nil {
			return peerMaterial{}, err
		}
		return peerMaterial{cert: &cert, pool: pool}, nil
	}, c.TLSCertFile, c.TLSKeyFile, c.TLSCAFile)
	if err != nil {
		return nil, err
	}
	t.files = files
	t.checkOwn()
	t.failures = promauto.With(reg).NewCounterVec(prometheus.CounterOpts{
		Name: "lsnode_replication_tls_failures_total",
		Help: "Replication TLS handshakes that failed, by side: server when this node refused a dialing peer " +
			"(no certificate, or one not from --tls-ca), client when a handshake this node dialed failed.",
	}, []string{"side"})
	return t, nil
}

// checkOwn warns at start when this node's certificate would be refused
// by peers trusting the same CA: not issued by it, or without the client
// or server key usage (an HTTPS certificate of a public CA, say). It only
// warns: during a CA rotation the peers' files may differ from this one.
func (t *PeerTLS) checkOwn() {
	cur := t.files.current()
	leaf := cur.cert.Leaf
	if leaf == nil {
		return // not reached: LoadX509KeyPair fills Leaf
	}
	for _, usage := range []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth} {
		opts := x509.VerifyOptions{Roots: cur.pool, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{usage}}
		for _, der := range cur.cert.Certificate[1:] {
			if c, err := x509.ParseCertificate(der); err == nil {
				opts.Intermediates.AddCert(c)
			}
		}
		if _, err := leaf.Verify(opts); err != nil {
			t.log.Warn("this node's --tls-cert does not verify against its own --tls-ca; peers trusting that CA will refuse it",
				"subject", leaf.Subject.String(), "issuer", leaf.Issuer.String(), "err", err)
			return
		}
	}
}

// LoadCAPool reads the PEM certificates of the --tls-ca file.
func LoadCAPool(path string) (*x509.CertPool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replication TLS: read --tls-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(raw) {
		return nil, fmt.Errorf("replication TLS: --tls-ca %s holds no PEM certificate", path)
	}
	return pool, nil
}

// serverConfig is the TLS of one inbound handshake: a client certificate
// is required and checked against the CA by verifyClient, which names
// the certificate in its error.
func (t *PeerTLS) serverConfig() *tls.Config {
	cur := t.files.current()
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{*cur.cert},
		// Requested, then required by verifyClient, which also runs when
		// none was sent and says so in the refusal.
		ClientAuth:            tls.RequestClientCert,
		VerifyPeerCertificate: verifyClient(cur.pool),
	}
}

// clientConfig is the TLS of one outbound handshake: the server must
// present a certificate from the CA naming the dialed host, and this
// node always offers its own (even when the server's list of acceptable
// CAs does not match it, so the server can say why it refuses it).
func (t *PeerTLS) clientConfig() *tls.Config {
	cur := t.files.current()
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		RootCAs:    cur.pool,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return cur.cert, nil
		},
	}
}

// errNoClientCert is the refusal of a peer that offered no certificate.
var errNoClientCert = errors.New("peer offered no client certificate; --tls-ca requires one")

// verifyClient checks a dialing peer's chain against pool, for client
// authentication, as tls.RequireAndVerifyClientCert does, but with an
// error that names the certificate and its issuer.
func verifyClient(pool *x509.CertPool) func([][]byte, [][]*x509.Certificate) error {
	return func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errNoClientCert
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, b := range raw {
			c, err := x509.ParseCertificate(b)
			if err != nil {
				return fmt.Errorf("peer certificate does not parse: %w", err)
			}
			certs[i] = c
		}
		inter := x509.NewCertPool()
		for _, c := range certs[1:] {
			inter.AddCert(c)
		}
		_, err := certs[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
		if err != nil {
			return fmt.Errorf("peer certificate %q issued by %q is not accepted by --tls-ca: %w",
				certs[0].Subject.String(), certs[0].Issuer.String(), err)
		}
		return nil
	}
}

// Credentials returns the gRPC transport credentials of both sides.
func (t *PeerTLS) Credentials() credentials.TransportCredentials { return peerCreds{t: t} }

// peerCreds is gRPC's TLS (credentials.NewTLS) with a configuration
// built per handshake from the current files, and each failure logged
// with the peer it concerns and counted.
type peerCreds struct{ t *PeerTLS }

func (c peerCreds) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := credentials.NewTLS(c.t.clientConfig()).ClientHandshake(ctx, authority, raw)
	if err == nil {
		conn, err = confirmAccepted(ctx, conn, info)
	}
	if err != nil {
		c.t.failures.WithLabelValues("client").Inc()
		c.t.log.Warn("replication TLS handshake with peer failed", "peer", authority, "err", err)
		return nil, nil, fmt.Errorf("TLS handshake with %s: %w", authority, err)
	}
	return conn, info, nil
}

// confirmAccepted waits, on TLS 1.3, for the server's first bytes before
// the connection is handed to gRPC. In TLS 1.3 the client's handshake
// ends before the server has checked the client's certificate, so a
// refusal would otherwise surface later as a bare "broken pipe" or EOF;
// reading here turns it into the server's alert ("remote error: tls:
// bad certificate"), reported as a TLS failure with the peer's name. A
// gRPC server speaks first (its SETTINGS frame), so this never waits for
// the client; the bytes read are replayed to gRPC.
func confirmAccepted(ctx context.Context, conn net.Conn, info credentials.AuthInfo) (net.Conn, error) {
	if ti, ok := info.(credentials.TLSInfo); !ok || ti.State.Version < tls.VersionTLS13 {
		return conn, nil
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(confirmTimeout)
	}
	if err := conn.SetReadDeadline(deadline); err != nil {
		conn.Close()
		return nil, err
	}
	first := make([]byte, 1)
	n, err := conn.Read(first)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.SetReadDeadline(time.Time{}); err != nil {
		conn.Close()
		return nil, err
	}
	return &replayConn{Conn: conn, pending: first[:n]}, nil
}

// confirmTimeout bounds confirmAccepted when gRPC gave no deadline.
const confirmTimeout = 20 * time.Second

// replayConn returns pending before reading on from Conn.
type replayConn struct {
	net.Conn
	pending []byte
}

func (c *replayConn) Read(b []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(b, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

func (c peerCreds) ServerHandshake(raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := credentials.NewTLS(c.t.serverConfig()).ServerHandshake(raw)
	if err != nil {
		c.t.failures.WithLabelValues("server").Inc()
		c.t.log.Warn("replication peer refused: TLS handshake failed", "peer", raw.RemoteAddr().String(), "err", err)
		return nil, nil, err
	}
	return conn, info, nil
}

func (c peerCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "tls"}
}

func (c peerCreds) Clone() credentials.TransportCredentials { return c }

// OverrideServerName is deprecated in gRPC and unused: the server name is
// the dialed host.
func (c peerCreds) OverrideServerName(string) error { return nil }
