package node

import (
	"errors"
	"strings"
	"testing"
)

func TestConfig_Validate(t *testing.T) {
	ok := DefaultConfig()
	if err := ok.Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	cases := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"no data dir", func(c *Config) { c.DataDir = "" }, "DataDir"},
		{"bad addr", func(c *Config) { c.HTTPAddr = "nowhere" }, "HTTPAddr"},
		{"public without token", func(c *Config) { c.HTTPAddr = "0.0.0.0:8765" }, "non-loopback"},
		{"all interfaces without token", func(c *Config) { c.HTTPAddr = ":8765" }, "non-loopback"},
		{"half TLS", func(c *Config) { c.TLSCertFile = "c.pem" }, "TLS requires both --tls-cert and --tls-key"},
		{"negative cap", func(c *Config) { c.SSEMaxClients = -1 }, "SSEMaxClients"},
		{"zero heartbeat", func(c *Config) { c.SSEHeartbeat = 0 }, "SSEHeartbeat"},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	c := DefaultConfig()
	c.HTTPAddr = "0.0.0.0:8765"
	if err := c.Validate(); !errors.Is(err, ErrInsecureBind) {
		t.Fatalf("want ErrInsecureBind, got %v", err)
	}
	for _, fix := range []func(*Config){func(c *Config) { c.Token = "t" }, func(c *Config) { c.AllowInsecureNoToken = true }} {
		c := DefaultConfig()
		c.HTTPAddr = "0.0.0.0:8765"
		fix(&c)
		if err := c.Validate(); err != nil {
			t.Fatalf("fixed public bind: %v", err)
		}
	}
}
