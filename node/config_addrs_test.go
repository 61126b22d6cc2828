package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/internal/testpki"
)

// TestConfig_ValidateAddresses: every address is checked for its form
// (and listeners for their ports) by Validate, before New or Start
// touch anything.
func TestConfig_ValidateAddresses(t *testing.T) {
	repl := func(c *Config) { c.Replication.Addr = "127.0.0.1:0" }
	gossip := func(c *Config) { repl(c); c.Membership.BindAddr = "127.0.0.1:0" }
	cases := []struct {
		name   string
		mutate func(*Config)
		want   string // "" means valid
	}{
		{"http port out of range", func(c *Config) { c.HTTP.Addr = "127.0.0.1:99999" }, `HTTPAddr "127.0.0.1:99999": port 99999 is not in 0..65535`},
		{"http service name", func(c *Config) { c.HTTP.Addr = "127.0.0.1:http" }, ""},
		{"grpc port out of range", func(c *Config) { c.Replication.Addr = "127.0.0.1:65536" }, `--grpc "127.0.0.1:65536"`},
		{"grpc-advertise without grpc", func(c *Config) { c.Replication.Advertise = "10.0.0.1:8766" }, "--grpc-advertise needs --grpc"},
		{"grpc-advertise port 0", func(c *Config) { repl(c); c.Replication.Advertise = "10.0.0.1:0" }, "port 0 cannot be connected to"},
		{"grpc-advertise", func(c *Config) { repl(c); c.Replication.Advertise = "node-1.example:8766" }, ""},
		{"gossip port out of range", func(c *Config) { repl(c); c.Membership.BindAddr = "127.0.0.1:99999" }, "BindAddr"},
		{"advertise not an IP", func(c *Config) { gossip(c); c.Membership.AdvertiseAddr = "node-1:7946" }, "AdvertiseAddr"},
		{"advertise IP without port", func(c *Config) { gossip(c); c.Membership.AdvertiseAddr = "10.0.0.1" }, ""},
		{"advertise without gossip", func(c *Config) { repl(c); c.Membership.AdvertiseAddr = "10.0.0.1:7946" }, "--advertise needs --gossip"},
		{"peer port out of range", func(c *Config) { repl(c); c.Replication.Peers = []string{"10.0.0.2:8766", "10.0.0.3:99999"} }, `--peer "10.0.0.3:99999"`},
		{"peer without port", func(c *Config) { repl(c); c.Replication.Peers = []string{"10.0.0.2"} }, "missing port"},
		{"join port out of range", func(c *Config) { gossip(c); c.Membership.Join = []string{"10.0.0.2:99999"} }, `--join "10.0.0.2:99999"`},
		{"join without port", func(c *Config) { gossip(c); c.Membership.Join = []string{"seed.example"} }, ""},
		{"http and grpc on one port", func(c *Config) { c.HTTP.Addr, c.Replication.Addr = "127.0.0.1:8765", ":8765" }, "--http and --grpc both bind port 8765"},
		{"grpc and gossip on one port", func(c *Config) { c.Replication.Addr, c.Membership.BindAddr = "127.0.0.1:7946", "0.0.0.0:7946" }, "--grpc and --gossip both bind port 7946"},
		{"free ports everywhere", gossip, ""},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mutate(&c)
		err := c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want valid", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestConfig_CheckFiles: the files Start loads, some only once the store
// is open, are read by CheckFiles without touching the data dir.
func TestConfig_CheckFiles(t *testing.T) {
	tmp := t.TempDir()
	ca := testpki.NewCA(t, "mesh")
	cert, key := ca.Issue(t, "n1")
	badKey := filepath.Join(tmp, "gossip.key")
	if err := os.WriteFile(badKey, []byte("not base64\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		want   string // "" means no error
	}{
		{"no files", func(*Config) {}, ""},
		{"gossip key file", func(c *Config) {
			c.Replication.Addr, c.Membership.BindAddr, c.Membership.KeyringFile = "127.0.0.1:0", "127.0.0.1:0", badKey
		}, "invalid gossip key"},
		{"gossip key file without gossip", func(c *Config) { c.Membership.KeyringFile = badKey }, ""},
		{"replication CA", func(c *Config) {
			c.Auth.TLSCertFile, c.Auth.TLSKeyFile = cert, key
			c.Replication.Addr, c.Auth.TLSCAFile = "127.0.0.1:0", filepath.Join(tmp, "missing-ca.pem")
		}, "read --tls-ca"},
		{"https key pair", func(c *Config) {
			c.Auth.TLSCertFile, c.Auth.TLSKeyFile = filepath.Join(tmp, "missing.pem"), filepath.Join(tmp, "missing.key")
		}, "HTTPS key pair"},
		{"https key is a certificate", func(c *Config) { c.Auth.TLSCertFile, c.Auth.TLSKeyFile = cert, cert }, "TLS key pair"},
		{"all good", func(c *Config) {
			c.Auth.TLSCertFile, c.Auth.TLSKeyFile, c.Auth.TLSCAFile, c.Replication.Addr = cert, key, ca.CertFile, "127.0.0.1:0"
		}, ""},
	} {
		c := DefaultConfig()
		c.DataDir = filepath.Join(tmp, tc.name)
		tc.mutate(&c)
		err := c.CheckFiles()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if _, err := os.Stat(c.DataDir); !os.IsNotExist(err) {
			t.Errorf("%s: CheckFiles touched the data dir (stat: %v)", tc.name, err)
		}
	}
}
