package auth

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/testpki"
)

func TestConfig_Validate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	for _, c := range []Config{{TLSCertFile: "c.pem"}, {TLSKeyFile: "k.pem"}} {
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "TLS requires both --tls-cert and --tls-key") {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := (Config{TLSCertFile: "c.pem", TLSKeyFile: "k.pem", TLSCAFile: "ca.pem"}).Validate(); err != nil {
		t.Errorf("a full TLS config: %v", err)
	}
}

func TestConfig_CheckFiles(t *testing.T) {
	ca := testpki.NewCA(t, "mesh")
	cert, key := ca.Issue(t, "n1")
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tc := range []struct {
		name string
		c    Config
		want string // "" means no error
	}{
		{"none", Config{}, ""},
		{"all good", Config{TLSCertFile: cert, TLSKeyFile: key, TLSCAFile: ca.CertFile}, ""},
		{"missing key pair", Config{TLSCertFile: missing, TLSKeyFile: missing}, "HTTPS key pair"},
		{"missing CA", Config{TLSCertFile: cert, TLSKeyFile: key, TLSCAFile: missing}, "read --tls-ca"},
	} {
		err := tc.c.CheckFiles()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
