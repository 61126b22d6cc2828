package pytime

import (
	"testing"
	"time"
)

// TestParseTimeoutAndInterval: MEMPALACE_SYNC_HTTP_TIMEOUT and
// MEMPALACE_SYNC_INTERVAL values read as the Python hub reads them
// (cmd/lsnode reads the variables and passes their values), with the
// hub's defaults, 30 s and 15 s.
func TestParseTimeoutAndInterval(t *testing.T) {
	const defTimeout, defInterval = 30 * time.Second, 15 * time.Second
	if ParseTimeout("2.5", defTimeout).Seconds() != 2.5 || ParseInterval("0", defInterval) != 0 {
		t.Fatal("values not read")
	}
	if ParseTimeout("soon", defTimeout) != defTimeout ||
		ParseInterval("often", defInterval) != defInterval {
		t.Fatal("garbage should fall back to the defaults")
	}
}
