package main

import (
	"testing"
	"time"

	"github.com/lsnode/lsnode/node"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// TestServePythonSyncEnv: serve reads the Python hub's
// MEMPALACE_SYNC_HTTP_TIMEOUT and MEMPALACE_SYNC_INTERVAL as the hub does
// (float seconds; garbage means the default, an interval of 0 turns the
// pull loop off) and hands them to the node.
func TestServePythonSyncEnv(t *testing.T) {
	t.Setenv("LSNODE_HTTP_SYNC_INTERVAL", "")
	t.Setenv("MEMPALACE_SYNC_HTTP_TIMEOUT", "2.5")
	t.Setenv("MEMPALACE_SYNC_INTERVAL", "0")
	if cfg := serveConfig(t); cfg.HTTPSyncTimeout != 2500*time.Millisecond || cfg.HTTPSyncInterval != 0 {
		t.Fatalf("env values not read: timeout %s, interval %s", cfg.HTTPSyncTimeout, cfg.HTTPSyncInterval)
	}
	t.Setenv("MEMPALACE_SYNC_HTTP_TIMEOUT", "soon")
	t.Setenv("MEMPALACE_SYNC_INTERVAL", "often")
	if cfg := serveConfig(t); cfg.HTTPSyncTimeout != hubpull.DefaultTimeout || cfg.HTTPSyncInterval != node.DefaultHTTPSyncInterval {
		t.Fatalf("garbage should fall back to the defaults: timeout %s, interval %s", cfg.HTTPSyncTimeout, cfg.HTTPSyncInterval)
	}
}
