package auth

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/lsnode/lsnode/internal/testpki"
	"github.com/lsnode/lsnode/internal/testwait"
)

// logBuffer collects slog text lines for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// tlsSide is one PeerTLS with its logs and metrics.
type tlsSide struct {
	pt   *PeerTLS
	logs *logBuffer
	reg  *prometheus.Registry
}

// tlsFiles are the three files of --tls-cert, --tls-key and --tls-ca.
type tlsFiles struct{ cert, key, ca string }

func newTLSSide(t *testing.T, f tlsFiles) *tlsSide {
	t.Helper()
	s := &tlsSide{logs: &logBuffer{}, reg: prometheus.NewRegistry()}
	pt, err := NewPeerTLS(Config{TLSCertFile: f.cert, TLSKeyFile: f.key, TLSCAFile: f.ca}, slog.New(slog.NewTextHandler(s.logs, nil)), s.reg)
	if err != nil {
		t.Fatal(err)
	}
	s.pt = pt
	return s
}

// failures reads lsnode_replication_tls_failures_total{side} from the
// side's registry.
func (s *tlsSide) failures(t *testing.T, side string) float64 {
	t.Helper()
	mfs, err := s.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "lsnode_replication_tls_failures_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "side" && l.GetValue() == side {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// serveTLS runs a gRPC health server with the side's credentials and
// returns its address; it stops at cleanup.
func serveTLS(t *testing.T, s *tlsSide) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.Creds(s.pt.Credentials()))
	healthpb.RegisterHealthServer(srv, health.NewServer())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return ln.Addr().String()
}

// check dials addr with creds and runs one health check.
func check(t *testing.T, addr string, creds credentials.TransportCredentials) error {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	return err
}

// waitLog polls the side's logs for want (the server logs after the
// client has seen its error).
func waitLog(t *testing.T, s *tlsSide, want string) {
	t.Helper()
	testwait.For(t, 10*time.Second, func() (bool, string) {
		logs := s.logs.String()
		return strings.Contains(logs, want), fmt.Sprintf("log lacks %q:\n%s", want, logs)
	})
}

func TestPeerTLS_AcceptsCASignedPeers(t *testing.T) {
	ca := testpki.NewCA(t, "mesh")
	srv := newTLSSide(t, mustIssue(t, ca, "node-a"))
	cli := newTLSSide(t, mustIssue(t, ca, "node-b"))
	addr := serveTLS(t, srv)
	if err := check(t, addr, cli.pt.Credentials()); err != nil {
		t.Fatalf("CA-signed peer refused: %v", err)
	}
	if srv.failures(t, "server") != 0 || cli.failures(t, "client") != 0 {
		t.Fatalf("failures counted: server %v client %v", srv.failures(t, "server"), cli.failures(t, "client"))
	}
}

func TestPeerTLS_RefusesClientFromAnotherCA(t *testing.T) {
	ca, other := testpki.NewCA(t, "mesh"), testpki.NewCA(t, "stranger-ca")
	srv := newTLSSide(t, mustIssue(t, ca, "node-a"))
	// The stranger trusts the mesh CA, so only the server can refuse.
	cert, key := other.Issue(t, "stranger")
	cli := newTLSSide(t, tlsFiles{cert, key, ca.CertFile})
	addr := serveTLS(t, srv)
	err := check(t, addr, cli.pt.Credentials())
	if err == nil || !strings.Contains(err.Error(), "remote error: tls: ") {
		t.Fatalf("client error = %v, want the server's TLS alert", err)
	}
	t.Logf("client sees: %v", err)
	waitLog(t, cli, "replication TLS handshake with peer failed")
	waitLog(t, srv, "replication peer refused: TLS handshake failed")
	waitLog(t, srv, `peer certificate \"CN=stranger\" issued by \"CN=stranger-ca\" is not accepted by --tls-ca`)
	waitLog(t, srv, "peer=127.0.0.1:")
	if got := srv.failures(t, "server"); got != 1 {
		t.Fatalf("server failures = %v, want 1", got)
	}
}

func TestPeerTLS_RefusesSelfSignedAndMissingCertificates(t *testing.T) {
	ca := testpki.NewCA(t, "mesh")
	srv := newTLSSide(t, mustIssue(t, ca, "node-a"))
	addr := serveTLS(t, srv)

	// A self-signed certificate: its own CA, trusting the mesh CA.
	self := testpki.NewCA(t, "self")
	cert, key := self.Issue(t, "self")
	cli := newTLSSide(t, tlsFiles{cert, key, ca.CertFile})
	if err := check(t, addr, cli.pt.Credentials()); err == nil {
		t.Fatal("self-signed peer accepted")
	}
	waitLog(t, srv, `issued by \"CN=self\" is not accepted by --tls-ca`)

	// No certificate at all: plain TLS that trusts the mesh CA.
	pool, err := LoadCAPool(ca.CertFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := check(t, addr, credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})); err == nil {
		t.Fatal("peer without a certificate accepted")
	}
	waitLog(t, srv, "peer offered no client certificate; --tls-ca requires one")

	// Plaintext.
	if err := check(t, addr, insecure.NewCredentials()); err == nil {
		t.Fatal("plaintext peer accepted")
	}
	waitLog(t, srv, "first record does not look like a TLS handshake")
	if got := srv.failures(t, "server"); got != 3 {
		t.Fatalf("server failures = %v, want 3", got)
	}
}

// A node whose own certificate its --tls-ca would refuse is warned at
// start; one whose certificate verifies is not.
func TestPeerTLS_WarnsAboutItsOwnCertificate(t *testing.T) {
	ca, other := testpki.NewCA(t, "mesh"), testpki.NewCA(t, "stranger-ca")
	good := newTLSSide(t, mustIssue(t, ca, "node-a"))
	if strings.Contains(good.logs.String(), "does not verify") {
		t.Fatalf("warned about a good certificate:\n%s", good.logs.String())
	}
	cert, key := other.Issue(t, "node-b")
	bad := newTLSSide(t, tlsFiles{cert, key, ca.CertFile})
	if !strings.Contains(bad.logs.String(), "this node's --tls-cert does not verify against its own --tls-ca") ||
		!strings.Contains(bad.logs.String(), "CN=stranger-ca") {
		t.Fatalf("no warning about a certificate of another CA:\n%s", bad.logs.String())
	}
}

func TestPeerTLS_RefusesServerFromAnotherCA(t *testing.T) {
	ca, other := testpki.NewCA(t, "mesh"), testpki.NewCA(t, "stranger-ca")
	cert, key := other.Issue(t, "stranger")
	srv := newTLSSide(t, tlsFiles{cert, key, ca.CertFile})
	cli := newTLSSide(t, mustIssue(t, ca, "node-b"))
	addr := serveTLS(t, srv)
	err := check(t, addr, cli.pt.Credentials())
	if err == nil || !strings.Contains(err.Error(), "x509: certificate signed by unknown authority") {
		t.Fatalf("client error = %v, want the unknown authority", err)
	}
	waitLog(t, cli, "replication TLS handshake with peer failed")
	waitLog(t, cli, "peer=127.0.0.1:")
	if got := cli.failures(t, "client"); got != 1 {
		t.Fatalf("client failures = %v, want 1", got)
	}
}

// A CA file replaced on disk is used by the next handshake: a peer of the
// new CA is refused before and accepted after, with no restart.
func TestPeerTLS_ReloadsChangedFiles(t *testing.T) {
	ca, next := testpki.NewCA(t, "mesh"), testpki.NewCA(t, "mesh-2027")
	srvCert, srvKey := ca.Issue(t, "node-a")
	srv := newTLSSide(t, tlsFiles{srvCert, srvKey, ca.CertFile})
	addr := serveTLS(t, srv)
	cert, key := next.Issue(t, "node-c")
	cli := newTLSSide(t, tlsFiles{cert, key, ca.CertFile})
	if err := check(t, addr, cli.pt.Credentials()); err == nil {
		t.Fatal("peer of the next CA accepted before the server trusts it")
	}
	both := append(mustRead(t, ca.CertFile), mustRead(t, next.CertFile)...)
	if err := os.WriteFile(ca.CertFile, both, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := check(t, addr, cli.pt.Credentials()); err != nil {
		t.Fatalf("after the CA file gained the next CA: %v", err)
	}
	waitLog(t, srv, "replication TLS files changed")
}

func TestPeerTLS_StartupErrors(t *testing.T) {
	ca := testpki.NewCA(t, "mesh")
	cert, key := ca.Issue(t, "node-a")
	notPEM := writeTempFile(t, "not a certificate")
	cases := []struct {
		name          string
		cert, key, ca string
		want          string
	}{
		{"missing ca", cert, key, "/nonexistent/ca.pem", "replication TLS: stat /nonexistent/ca.pem"},
		{"ca not pem", cert, key, notPEM, "holds no PEM certificate"},
		{"key mismatch", cert, ca.CertFile, ca.CertFile, "load --tls-cert/--tls-key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPeerTLS(Config{TLSCertFile: tc.cert, TLSKeyFile: tc.key, TLSCAFile: tc.ca}, slog.New(slog.NewTextHandler(&logBuffer{}, nil)), prometheus.NewRegistry())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func mustIssue(t *testing.T, ca *testpki.CA, cn string) tlsFiles {
	t.Helper()
	cert, key := ca.Issue(t, cn)
	return tlsFiles{cert, key, ca.CertFile}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeTempFile(t *testing.T, content string) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "file")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}
