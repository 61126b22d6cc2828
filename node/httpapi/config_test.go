package httpapi

import (
	"strings"
	"testing"
)

func TestConfig_Validate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"bad addr", func(c *Config) { c.Addr = "nowhere" }, `HTTPAddr "nowhere"`},
		{"negative stream cap", func(c *Config) { c.SSEMaxClients = -1 }, "SSEMaxClients"},
		{"zero heartbeat", func(c *Config) { c.SSEHeartbeat = 0 }, "SSEHeartbeat"},
		{"zero long poll", func(c *Config) { c.MaxLongPoll = 0 }, "MaxLongPoll"},
		{"zero write timeout", func(c *Config) { c.WriteTimeout = 0 }, "WriteTimeout"},
		{"zero idle timeout", func(c *Config) { c.IdleTimeout = 0 }, "--http-idle-timeout must be positive"},
		{"small header cap", func(c *Config) { c.MaxHeaderBytes = 4095 }, "--max-header-bytes must be at least 4096"},
		{"negative wait cap", func(c *Config) { c.MaxWaitsPerClient = -1 }, "--max-waits-per-client must not be negative"},
		{"zero console idle timeout", func(c *Config) { c.ConsoleIdleTimeout = 0 }, "--console-idle-timeout must be positive"},
	} {
		c := DefaultConfig()
		tc.mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	off := DefaultConfig()
	off.Console, off.ConsoleIdleTimeout = false, 0
	if err := off.Validate(); err != nil {
		t.Errorf("console off, idle timeout 0: %v", err)
	}
}
