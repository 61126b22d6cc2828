package membership

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gossip.key")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func key(n int, fill byte) string {
	return base64.StdEncoding.EncodeToString([]byte(strings.Repeat(string(fill), n)))
}

func TestLoadKeyringFile(t *testing.T) {
	content := "# rotated 2026-12-01\n" + key(32, 'a') + "\n\n  " + key(16, 'b') + "  \n" + key(24, 'c') + "\n"
	keys, err := LoadKeyringFile(writeTemp(t, content))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || len(keys[0]) != 32 || keys[0][0] != 'a' || len(keys[1]) != 16 || len(keys[2]) != 24 {
		t.Fatalf("keys = %q", keys)
	}
}

func TestLoadKeyringFile_Errors(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"not base64", "!!!\n", "line 1 is not base64"},
		{"wrong length", key(32, 'a') + "\n" + key(20, 'b') + "\n", "line 2: membership: invalid gossip key: 20 bytes"},
		{"no key", "# nothing\n\n", "holds no key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadKeyringFile(writeTemp(t, tc.content))
			if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalidKey with %q", err, tc.want)
			}
		})
	}
	if _, err := LoadKeyringFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestConfig_Validate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"no cluster", func(c *Config) { c.ClusterID = "" }, "ClusterID is required"},
		{"bad bind", func(c *Config) { c.BindAddr = "nope" }, "BindAddr"},
		{"bad advertise", func(c *Config) { c.AdvertiseAddr = "host.example:1" }, "not an IP address"},
		{"short key", func(c *Config) { c.Keyring = [][]byte{[]byte("short")} }, "5 bytes"},
		{"bad queue", func(c *Config) { c.EventQueue = -1 }, "EventQueue"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig("c").withDefaults()
			tc.mutate(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	ok := DefaultConfig("c").withDefaults()
	ok.AdvertiseAddr = "10.1.2.3"
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
}
