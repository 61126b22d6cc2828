package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/internal/nodetest"
)

// A CPU profile is served to an admin token as a pprof (gzip) file and
// refused to an agent token.
func TestPprof_CPUProfileForAdmin(t *testing.T) {
	n := tkStart(t)
	r := nodetest.Get(t, n, "/debug/pprof/profile?seconds=1", nodetest.AdminToken)
	if r.Status != http.StatusOK || !strings.HasPrefix(r.Body, "\x1f\x8b") {
		t.Fatalf("status %d, %d bytes, want 200 and a gzip body", r.Status, len(r.Body))
	}
	if r := nodetest.Get(t, n, "/debug/pprof/profile?seconds=1", nodetest.AgentToken); r.Status != http.StatusForbidden {
		t.Fatalf("an agent token: status %d, want 403", r.Status)
	}
}

func TestPprof_IndexListsProfiles(t *testing.T) {
	n := tkStart(t)
	r := nodetest.Get(t, n, "/debug/pprof/", nodetest.SharedToken)
	for _, want := range []string{"goroutine", "heap", "profile"} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("index lacks %q:\n%s", want, r.Body)
		}
	}
}
