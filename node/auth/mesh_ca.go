package auth

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
)

// MeshCATransport is the HTTP transport of the pull from peers.json with
// --tls-ca: https peers are trusted when the system's roots or the mesh
// CA signed their certificate. The CA file is read again when it changes,
// as replication's is, so a CA rotation reaches the Python hubs' pull
// without a restart.
func MeshCATransport(caFile string, log *slog.Logger) (http.RoundTripper, error) {
	roots, err := newReloading("http pull CA", log, func() (*x509.CertPool, error) {
		pool, err := SystemRootsWithCA(caFile)
		if err != nil {
			return nil, fmt.Errorf("http pull: %w", err)
		}
		return pool, nil
	}, caFile)
	if err != nil {
		return nil, err
	}
	return &caTransport{roots: roots}, nil
}

// SystemRootsWithCA is the system's root pool (an empty one where the
// system has none) with the certificates of the PEM file caFile added:
// what an HTTPS client of a node whose certificate a private CA signed
// trusts.
func SystemRootsWithCA(caFile string) (*x509.CertPool, error) {
	raw, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("read --tls-ca: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(raw) {
		return nil, fmt.Errorf("--tls-ca %s holds no PEM certificate", caFile)
	}
	return pool, nil
}

// caTransport sends each request through a transport that trusts the CA
// pool current then: a new pool gets a new transport (with the standard
// certificate and host name checks, through a proxy too), and the old
// one's idle connections are closed.
type caTransport struct {
	roots *reloading[*x509.CertPool]

	mu   sync.Mutex
	pool *x509.CertPool
	tr   *http.Transport
}

func (c *caTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return c.current().RoundTrip(req)
}

func (c *caTransport) current() *http.Transport {
	pool := c.roots.current()
	c.mu.Lock()
	defer c.mu.Unlock()
	if pool != c.pool {
		if c.tr != nil {
			c.tr.CloseIdleConnections()
		}
		c.tr = http.DefaultTransport.(*http.Transport).Clone()
		c.tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}
		c.pool = pool
	}
	return c.tr
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// current transport.
func (c *caTransport) CloseIdleConnections() { c.current().CloseIdleConnections() }
