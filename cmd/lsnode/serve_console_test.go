package main

import (
	"testing"
	"time"

	"github.com/lsnode/lsnode/node"
)

func TestServeConsoleFlags(t *testing.T) {
	def := serveConfig(t)
	if !def.HTTP.Console || def.HTTP.ConsoleIdleTimeout != node.DefaultConfig().HTTP.ConsoleIdleTimeout {
		t.Fatalf("defaults: console %v, idle %v", def.HTTP.Console, def.HTTP.ConsoleIdleTimeout)
	}
	cfg := serveConfig(t, "--console=false", "--console-idle-timeout=5m")
	if cfg.HTTP.Console || cfg.HTTP.ConsoleIdleTimeout != 5*time.Minute {
		t.Fatalf("flags: console %v, idle %v", cfg.HTTP.Console, cfg.HTTP.ConsoleIdleTimeout)
	}
	if err := serveConfig(t, "--console-idle-timeout=0s").Validate(); err == nil {
		t.Fatal("a zero idle timeout accepted")
	}
}

func TestServeConsoleEnv(t *testing.T) {
	for _, tc := range []struct {
		value string
		on    bool
	}{{"off", false}, {"0", false}, {"FALSE", false}, {"no", false}, {"1", true}, {"on", true}} {
		t.Setenv("LSNODE_CONSOLE", tc.value)
		if cfg := serveConfig(t); cfg.HTTP.Console != tc.on {
			t.Errorf("LSNODE_CONSOLE=%s: console %v", tc.value, cfg.HTTP.Console)
		}
	}
	t.Setenv("LSNODE_CONSOLE", "off")
	if cfg := serveConfig(t, "--console"); !cfg.HTTP.Console {
		t.Fatal("the flag did not win over the variable")
	}
	t.Setenv("LSNODE_CONSOLE_IDLE_TIMEOUT", "90s")
	if cfg := serveConfig(t); cfg.HTTP.ConsoleIdleTimeout != 90*time.Second {
		t.Fatalf("LSNODE_CONSOLE_IDLE_TIMEOUT: %v", cfg.HTTP.ConsoleIdleTimeout)
	}
}
