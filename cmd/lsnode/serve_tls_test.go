package main

import (
	"io"
	"log/slog"
	"testing"
)

// --tls-ca reaches the node's config, from the flag or LSNODE_TLS_CA.
func TestServeFlags_TLSCA(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		args      []string
		want      string
	}{
		{"env", "/etc/lsnode/ca.pem", nil, "/etc/lsnode/ca.pem"},
		{"flag beats env", "/etc/lsnode/ca.pem", []string{"--tls-ca", "/other/ca.pem"}, "/other/ca.pem"},
		{"unset", "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LSNODE_TLS_CA", tc.env)
			t.Setenv("LSNODE_TOKEN_FILE", "")
			fs := newFlagSet("serve", io.Discard, io.Discard)
			f := addServeFlags(fs.FlagSet, osEnv, nil)
			if err := parseFlags(fs, tc.args, false); err != nil {
				t.Fatal(err)
			}
			cfg, err := f.config(slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Auth.TLSCAFile != tc.want {
				t.Fatalf("TLSCAFile = %q, want %q", cfg.Auth.TLSCAFile, tc.want)
			}
		})
	}
}
