//go:build e2e

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// Artifacts replicate without an event naming them, between real
// `lsnode serve` processes: through each node's artifact feed, pushed as
// they are put and pulled after a restart (docs/architecture.md#artifacts).

// rpPutArtifact puts a note artifact on p (mempalace_artifact_put) and
// returns its id.
func rpPutArtifact(t *testing.T, p *lsnodeProc, content string) string {
	t.Helper()
	var out struct {
		Success  bool
		Artifact struct{ ID string }
	}
	err := rpTool(p, "mempalace_artifact_put", map[string]any{"kind": "note", "content": content, "created_by": "ana@e2e"}, &out)
	if err != nil || !out.Success || out.Artifact.ID == "" {
		t.Fatalf("put on %s: %v %+v", p.URL, err, out)
	}
	return out.Artifact.ID
}

// rpGetArtifact reads artifact id on p (mempalace_artifact_get); an error
// result (not found) is an error.
func rpGetArtifact(p *lsnodeProc, id string) (string, error) {
	var out struct {
		Artifact struct{ Content string }
	}
	err := rpTool(p, "mempalace_artifact_get", map[string]any{"artifact_id": id}, &out)
	return out.Artifact.Content, err
}

// rpWaitArtifact polls p until it serves artifact id with content and
// returns how long that took.
func rpWaitArtifact(t *testing.T, p *lsnodeProc, id, content string) time.Duration {
	t.Helper()
	start := time.Now()
	testwait.Until(t, rpConvergeLimit, fmt.Sprintf("artifact %s on %s", id, p.URL), func() bool {
		got, err := rpGetArtifact(p, id)
		return err == nil && got == content
	})
	return time.Since(start)
}

// TestReplication_ArtifactWithoutEvent: on two nodes that are each
// other's peer, an artifact put on one, named by no event, is served by
// the other (it was not found there before the feed existed); one put
// while the other is stopped reaches it after its restart, and so does
// one put after the restart, both ways. `lsnode artifact get` on the
// second node prints it.
func TestReplication_ArtifactWithoutEvent(t *testing.T) {
	lsnodeBin(t)
	nodes, _ := rpMesh(t, []string{rpCluster, rpCluster}, [][]int{{1}, {0}})
	a, b := nodes[0], nodes[1]
	// The mesh is up once an op has crossed each way.
	ids := append(rpMustAppend(t, a, "agent-a", 1), rpMustAppend(t, b, "agent-b", 1)...)
	rpConverged(t, rpConvergeLimit, ids, a, b)

	content := "put on a, named by no event"
	id := rpPutArtifact(t, a, content)
	took := rpWaitArtifact(t, b, id, content)
	t.Logf("a -> b on a live mesh: %v", took.Round(time.Millisecond))
	code, stdout, stderr := b.CLI("artifact", "get", id)
	if code != 0 || !strings.Contains(stdout, content) {
		t.Fatalf("lsnode artifact get %s on b: exit %d\n%s%s", id, code, stdout, stderr)
	}

	if err := b.Stop(); err != nil {
		t.Fatalf("stop b: %v\n%s", err, b.Logs())
	}
	whileDown := map[string]string{}
	for i := range 3 {
		c := fmt.Sprintf("put on a while b is down, #%d", i)
		whileDown[rpPutArtifact(t, a, c)] = c
	}
	b.Restart()
	restarted := time.Now()
	for id, c := range whileDown {
		rpWaitArtifact(t, b, id, c)
	}
	t.Logf("3 artifacts put while b was down: on b %v after its restart", time.Since(restarted).Round(time.Millisecond))
	for _, pair := range [][2]*lsnodeProc{{a, b}, {b, a}} {
		c := "put on " + pair[0].URL + " after the restart"
		id := rpPutArtifact(t, pair[0], c)
		took := rpWaitArtifact(t, pair[1], id, c)
		t.Logf("%s -> %s after the restart: %v", pair[0].URL, pair[1].URL, took.Round(time.Millisecond))
	}
}
