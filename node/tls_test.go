package node

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testpki"
	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/sync/fakehub"
)

func TestConfig_ValidateTLSCA(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Config)
	}{
		{"ca without key pair", func(c *Config) { c.Auth.TLSCAFile, c.Replication.Addr = "ca.pem", "127.0.0.1:0" }},
		{"ca without grpc", func(c *Config) { c.Auth.TLSCAFile, c.Auth.TLSCertFile, c.Auth.TLSKeyFile = "ca.pem", "c.pem", "k.pem" }},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--tls-ca needs --tls-cert, --tls-key and --grpc") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	c := DefaultConfig()
	c.Auth.TLSCAFile, c.Auth.TLSCertFile, c.Auth.TLSKeyFile, c.Replication.Addr = "ca.pem", "c.pem", "k.pem", "127.0.0.1:0"
	if err := c.Validate(); err != nil {
		t.Fatalf("complete mutual TLS config: %v", err)
	}
}

// A missing HTTPS or replication TLS file stops the node at start with an
// error naming the file.
func TestNode_TLSMissingFiles(t *testing.T) {
	ca := testpki.NewCA(t, "mesh")
	cert, key := ca.Issue(t, "node-a")
	cases := []struct {
		name           string
		cert, key, caf string
		want           string
	}{
		{"missing cert", "/nonexistent/cert.pem", key, "", "HTTPS key pair: stat /nonexistent/cert.pem"},
		{"missing ca", cert, key, "/nonexistent/ca.pem", "replication TLS: stat /nonexistent/ca.pem"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.DataDir, cfg.HTTP.Addr, cfg.Replication.Addr = t.TempDir(), "127.0.0.1:0", "127.0.0.1:0"
			cfg.Auth.TLSCertFile, cfg.Auth.TLSKeyFile, cfg.Auth.TLSCAFile = tc.cert, tc.key, tc.caf
			n, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = n.Start(context.Background())
			if err == nil {
				_ = n.Shutdown(context.Background())
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Start: %v, want %q", err, tc.want)
			}
		})
	}
}

// HTTPS serves a renewed certificate once its files are replaced, with no
// restart: the issuer seen by a client changes from the old CA to the new.
func TestNode_TLSReloadsRenewedCertificate(t *testing.T) {
	oldCA, newCA := testpki.NewCA(t, "old-ca"), testpki.NewCA(t, "new-ca")
	cert, key := oldCA.Issue(t, "node-a")
	n := htStart(t, func(c *Config) { c.Auth.TLSCertFile, c.Auth.TLSKeyFile = cert, key })
	pool, newPool := caPool(t, oldCA.CertFile), caPool(t, newCA.CertFile)
	issuer := func(roots *x509.CertPool) (string, error) {
		// A fresh transport per call: a reused connection would show the
		// certificate of its own handshake.
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(n.URL() + "/healthz")
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		return resp.TLS.PeerCertificates[0].Issuer.CommonName, nil
	}
	if got, err := issuer(pool); err != nil || got != "old-ca" {
		t.Fatalf("before renewal: issuer %q, %v", got, err)
	}
	// Renew as certificate tools do: new files renamed into place.
	renewedCert, renewedKey := newCA.Issue(t, "node-a")
	for from, to := range map[string]string{renewedCert: cert, renewedKey: key} {
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := issuer(newPool); err != nil || got != "new-ca" {
		t.Fatalf("after renewal: issuer %q, %v", got, err)
	}
}

// With --tls-ca, the pull from peers.json trusts https peers whose
// certificate the mesh CA signed (a Python hub behind the mesh's PKI).
func TestNode_HTTPPullTrustsMeshCA(t *testing.T) {
	ca := testpki.NewCA(t, "mesh")
	hub := fakehub.New(fakehub.Config{Seed: 7})
	if _, err := hub.Append(fakehub.Write{Type: "note", Stream: "s", Room: "main", FromAgent: "py@hub", Body: "over https"}); err != nil {
		t.Fatal(err)
	}
	hubCert, hubKey := ca.Issue(t, "python-hub")
	pair, err := tls.LoadX509KeyPair(hubCert, hubKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(hub.Handler())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusting node's failed handshakes
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	cert, key := ca.Issue(t, "node-a")
	dataDir := t.TempDir()
	peers := `{"peers": [{"name": "py", "url": "` + srv.URL + `"}]}`
	if err := os.WriteFile(filepath.Join(dataDir, "peers.json"), []byte(peers), 0o600); err != nil {
		t.Fatal(err)
	}
	n := htStart(t, func(c *Config) {
		c.DataDir, c.Replication.Addr = dataDir, "127.0.0.1:0"
		c.Auth.TLSCertFile, c.Auth.TLSKeyFile, c.Auth.TLSCAFile = cert, key, ca.CertFile
	})
	testwait.Until(t, 10*time.Second, "the hub's event pulled over https", func() bool {
		return n.Store().VersionVector()[hub.ReplicaID()] >= 1
	})

	// Without --tls-ca the same pull fails on the unknown authority.
	plainDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(plainDir, "peers.json"), []byte(peers), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := htStart(t, func(c *Config) { c.DataDir = plainDir })
	testwait.Until(t, 10*time.Second, "the pull without --tls-ca to fail on the certificate", func() bool {
		st := plain.httpPull.Status()
		return len(st) == 1 && strings.Contains(st[0].LastError, "certificate signed by unknown authority")
	})
	if plain.Store().VersionVector()[hub.ReplicaID()] != 0 {
		t.Fatal("pulled from an https peer of an untrusted CA")
	}
}

// caPool is the pool of the PEM certificates of file.
func caPool(t *testing.T, file string) *x509.CertPool {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(raw) {
		t.Fatalf("%s holds no PEM certificate", file)
	}
	return pool
}
