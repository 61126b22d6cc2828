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
	if cfg := serveConfig(t); cfg.HubPull.Timeout != 2500*time.Millisecond || cfg.HubPull.Interval != 0 {
		t.Fatalf("env values not read: timeout %s, interval %s", cfg.HubPull.Timeout, cfg.HubPull.Interval)
	}
	t.Setenv("MEMPALACE_SYNC_HTTP_TIMEOUT", "soon")
	t.Setenv("MEMPALACE_SYNC_INTERVAL", "often")
	if cfg := serveConfig(t); cfg.HubPull.Timeout != hubpull.DefaultTimeout || cfg.HubPull.Interval != node.DefaultConfig().HubPull.Interval {
		t.Fatalf("garbage should fall back to the defaults: timeout %s, interval %s", cfg.HubPull.Timeout, cfg.HubPull.Interval)
	}
}
