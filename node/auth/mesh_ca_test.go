package auth

import (
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/testpki"
)

// TestMeshCATransport_FollowsTheCAFile: the pull from peers.json trusts
// the --tls-ca file as it is at each handshake: replacing the file with
// another CA's certificate takes effect without a restart.
func TestMeshCATransport_FollowsTheCAFile(t *testing.T) {
	oldCA, newCA := testpki.NewCA(t, "old"), testpki.NewCA(t, "new")
	hub := func(ca *testpki.CA) *httptest.Server {
		certFile, keyFile := ca.Issue(t, "hub")
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
		srv.StartTLS()
		t.Cleanup(srv.Close)
		return srv
	}
	oldHub, newHub := hub(oldCA), hub(newCA)
	caFile := t.TempDir() + "/mesh-ca.pem"
	copyFile(t, oldCA.CertFile, caFile)
	tr, err := MeshCATransport(caFile, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	get := func(srv *httptest.Server) error {
		c := &http.Client{Transport: tr}
		c.CloseIdleConnections() // every check is a new handshake
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(oldHub); err != nil {
		t.Fatalf("hub of the configured CA: %v", err)
	}
	if err := get(newHub); err == nil || !strings.Contains(err.Error(), "unknown authority") {
		t.Fatalf("hub of another CA: %v, want unknown authority", err)
	}
	copyFile(t, newCA.CertFile, caFile)
	if err := get(newHub); err != nil {
		t.Fatalf("hub of the CA the file now holds: %v", err)
	}
	if err := get(oldHub); err == nil {
		t.Fatal("hub of the CA the file no longer holds was trusted")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	raw, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to+".tmp", raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(to+".tmp", to); err != nil { // a new file at the path, as a renewal is
		t.Fatal(err)
	}
}
