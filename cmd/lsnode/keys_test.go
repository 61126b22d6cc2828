package main

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keysServer answers /lsnode/keys: GET with list, POST with reply or a
// 409 when refuse is set. It records the last POST body.
func keysServer(t *testing.T, newServer func(http.Handler) *httptest.Server, list, reply string, refuse string) (*httptest.Server, *string) {
	t.Helper()
	var posted string
	srv := newServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/lsnode/keys" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			io.WriteString(w, list)
			return
		}
		b, _ := io.ReadAll(r.Body)
		posted = string(b)
		if refuse != "" {
			w.WriteHeader(http.StatusConflict)
			json.NewEncoder(w).Encode(map[string]string{"error": refuse})
			return
		}
		io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	return srv, &posted
}

const (
	keysListReply = `{"op": "list", "members": 3, "succeeded": 3, "results": [{"name": "a", "ok": true}, {"name": "b", "ok": true}, {"name": "c", "ok": true}],
		"keys": [{"key": "b2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2w=", "members": 3, "primary": 3}, {"key": "bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmU=", "members": 3, "primary": 0}]}`
	keysPartialReply = `{"op": "install", "members": 3, "succeeded": 2, "results": [{"name": "a", "ok": true}, {"name": "b", "ok": true}, {"name": "c", "ok": false, "error": "no answer within 5s"}],
		"keys": [{"key": "bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmU=", "members": 2, "primary": 0}]}`
)

func TestRunKeys(t *testing.T) {
	clearClientEnv(t)
	t.Setenv("LSNODE_TLS_CA", "")
	srv, posted := keysServer(t, httptest.NewServer, keysListReply, keysPartialReply, "")

	code, out, errOut := runCLI(t, "keys", "list", "--addr", srv.URL)
	if code != exitOK || !strings.HasPrefix(out, "3/3 members answered\nKEY") ||
		!strings.Contains(out, "b2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2w=  3/3      3/3") ||
		!strings.Contains(out, "bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmU=  3/3      -") {
		t.Fatalf("keys list: exit %d\n%s%s", code, out, errOut)
	}
	// A member that did not apply the key: listed, and exit 1.
	code, out, errOut = runCLI(t, "keys", "install", "--addr", srv.URL, "bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmU=")
	if code != exitFailure || !strings.HasPrefix(out, "2/3 members installed key\n  c: no answer within 5s\n") ||
		!strings.Contains(errOut, "1 of 3 members did not install the key") {
		t.Fatalf("keys install: exit %d\n%s%s", code, out, errOut)
	}
	if *posted != `{"key":"bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmU=","op":"install"}` {
		t.Fatalf("posted %s", *posted)
	}
}

func TestRunKeys_Errors(t *testing.T) {
	clearClientEnv(t)
	t.Setenv("LSNODE_TLS_CA", "")
	refusing, _ := keysServer(t, httptest.NewServer, keysListReply, "", "membership: the key is the primary key; make another key primary (keys use) before removing it")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no op", []string{"keys"}, exitUsage, "want: list | install KEY"},
		{"unknown op", []string{"keys", "rotate"}, exitUsage, "want: list | install KEY"},
		{"missing key", []string{"keys", "use"}, exitUsage, "keys use takes one base64 KEY"},
		{"list with a key", []string{"keys", "list", "abc"}, exitUsage, `unexpected argument "abc"`},
		{"refused", []string{"keys", "remove", "--addr", refusing.URL, "b2xk"}, exitFailure,
			"lsnode keys: 409 Conflict: membership: the key is the primary key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tc.code, tc.want)
			}
		})
	}
}

// --tls-ca (LSNODE_TLS_CA) makes a client command trust a private CA.
func TestClient_TLSCA(t *testing.T) {
	clearClientEnv(t)
	t.Setenv("LSNODE_TLS_CA", "")
	srv, _ := keysServer(t, httptest.NewTLSServer, keysListReply, "", "")
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCLI(t, "keys", "list", "--addr", srv.URL); code != exitFailure ||
		!strings.Contains(errOut, "certificate signed by unknown authority") {
		t.Fatalf("without --tls-ca: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "keys", "list", "--addr", srv.URL, "--tls-ca", ca); code != exitOK {
		t.Fatalf("with --tls-ca: exit %d\n%s%s", code, out, errOut)
	}
	t.Setenv("LSNODE_TLS_CA", ca)
	if code, out, errOut := runCLI(t, "keys", "list", "--addr", srv.URL); code != exitOK {
		t.Fatalf("with LSNODE_TLS_CA: exit %d\n%s%s", code, out, errOut)
	}
	notPEM := filepath.Join(t.TempDir(), "x")
	os.WriteFile(notPEM, []byte("nope"), 0o600)
	if code, _, errOut := runCLI(t, "keys", "list", "--addr", srv.URL, "--tls-ca", notPEM); code != exitFailure ||
		!strings.Contains(errOut, "holds no PEM certificate") {
		t.Fatalf("bad --tls-ca: exit %d %s", code, errOut)
	}
}
