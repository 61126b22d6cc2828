package node

import (
	"net/http"
	"strings"
	"testing"
)

// A CPU profile is served to an admin token as a pprof (gzip) file and
// refused to an agent token.
func TestPprof_CPUProfileForAdmin(t *testing.T) {
	n := tkStart(t, tkFile)
	r := htGet(t, n, "/debug/pprof/profile?seconds=1", tkAdmin)
	if r.status != http.StatusOK || !strings.HasPrefix(r.body, "\x1f\x8b") {
		t.Fatalf("status %d, %d bytes, want 200 and a gzip body", r.status, len(r.body))
	}
	if r := htGet(t, n, "/debug/pprof/profile?seconds=1", tkAgent); r.status != http.StatusForbidden {
		t.Fatalf("an agent token: status %d, want 403", r.status)
	}
}

func TestPprof_IndexListsProfiles(t *testing.T) {
	n := tkStart(t, tkFile)
	r := htGet(t, n, "/debug/pprof/", htToken)
	for _, want := range []string{"goroutine", "heap", "profile"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("index lacks %q:\n%s", want, r.body)
		}
	}
}
