package node

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
)

// reloading holds what load makes of some files (a key pair, a CA pool)
// and makes it again when one of the files changed: each current() call
// stats the files (fileStamp) and reloads on a change,
// so renewed certificates apply at the next TLS handshake without a
// restart. A reload that fails keeps the previous value, with a warning;
// only the first load's error is returned.
type reloading[T any] struct {
	files []string
	load  func() (T, error)
	log   *slog.Logger
	what  string // for the log lines: "HTTPS key pair", ...

	mu     sync.Mutex
	stamps []fileStamp
	value  T
}

// fileStamp is what tells a changed file: another file at the path (a
// renewal renamed or symlinked into place), another size or another
// modification time.
type fileStamp struct{ fi os.FileInfo }

func (a fileStamp) same(b fileStamp) bool {
	return os.SameFile(a.fi, b.fi) && a.fi.Size() == b.fi.Size() && a.fi.ModTime().Equal(b.fi.ModTime())
}

// newReloading loads once; its error stops the node.
func newReloading[T any](what string, log *slog.Logger, load func() (T, error), files ...string) (*reloading[T], error) {
	r := &reloading[T]{files: files, load: load, log: log, what: what}
	stamps, err := r.stat()
	if err != nil {
		return nil, err
	}
	if r.value, err = load(); err != nil {
		return nil, err
	}
	r.stamps = stamps
	return r, nil
}

func (r *reloading[T]) stat() ([]fileStamp, error) {
	out := make([]fileStamp, len(r.files))
	for i, f := range r.files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.what, err)
		}
		out[i] = fileStamp{fi: fi}
	}
	return out, nil
}

// current returns the value, reloaded first if a file changed.
func (r *reloading[T]) current() T {
	r.mu.Lock()
	defer r.mu.Unlock()
	stamps, err := r.stat()
	if err == nil && equalStamps(stamps, r.stamps) {
		return r.value
	}
	var v T
	if err == nil {
		v, err = r.load()
	}
	if err != nil {
		r.log.Warn(r.what+" files unreadable; keeping the previous ones", "err", err)
		return r.value
	}
	r.log.Info(r.what+" files changed; new handshakes use them", "files", r.files)
	r.value, r.stamps = v, stamps
	return v
}

func equalStamps(a, b []fileStamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].same(b[i]) {
			return false
		}
	}
	return true
}

// loadTLS returns the HTTPS configuration of cfg (TLS 1.2 or later), or
// nil without TLS. The key pair is read again when its files change.
func loadTLS(cfg Config, log *slog.Logger) (*tls.Config, error) {
	if cfg.TLSCertFile == "" {
		return nil, nil
	}
	pair, err := newReloading("HTTPS key pair", log, func() (*tls.Certificate, error) {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile)
		if err != nil {
			return nil, fmt.Errorf("load TLS key pair: %w", err)
		}
		return &cert, nil
	}, cfg.TLSCertFile, cfg.TLSKeyFile)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return pair.current(), nil
		},
	}, nil
}

// meshCATransport is the HTTP transport of the pull from peers.json with
// --tls-ca: https peers are trusted when the system's roots or the mesh
// CA signed their certificate. The CA file is read again when it changes,
// as replication's is, so a CA rotation reaches the Python hubs' pull
// without a restart.
func meshCATransport(caFile string, log *slog.Logger) (http.RoundTripper, error) {
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
