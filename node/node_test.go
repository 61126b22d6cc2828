package node

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestNode_FailedStartLeavesNothingRunning(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := DefaultConfig()
	cfg.DataDir, cfg.HTTP.Addr, cfg.Registry = t.TempDir(), ln.Addr().String(), prometheus.NewRegistry()
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "listen on") {
		t.Fatalf("Start on a busy port: %v", err)
	}
	if err := n.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown after a failed Start: %v", err)
	}
	// The store was closed: the data dir opens again.
	cfg.HTTP.Addr, cfg.Registry = "127.0.0.1:0", prometheus.NewRegistry()
	n2, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n2.Start(context.Background()); err != nil {
		t.Fatalf("Start after a failed Start: %v", err)
	}
	if err := n2.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := n2.Shutdown(context.Background()); err != nil {
		t.Fatalf("second Shutdown: %v", err)
	}
}

// selfSigned writes a certificate and key for 127.0.0.1 into dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lsnode test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestNode_TLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t, t.TempDir())
	n := htStart(t, func(c *Config) { c.Auth.TLSCertFile, c.Auth.TLSKeyFile = certFile, keyFile })
	if !strings.HasPrefix(n.URL(), "https://") {
		t.Fatalf("URL %s", n.URL())
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get(n.URL() + "/statusz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS11}}}
	if _, err := old.Get(n.URL() + "/healthz"); err == nil {
		t.Fatal("a TLS 1.1 client was served; the minimum is 1.2")
	}
	cfg := DefaultConfig()
	cfg.DataDir, cfg.HTTP.Addr, cfg.Auth.TLSCertFile, cfg.Auth.TLSKeyFile = t.TempDir(), "127.0.0.1:0", certFile, certFile
	bad, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "TLS key pair") {
		t.Fatalf("Start with a bad key: %v", err)
	}
}
