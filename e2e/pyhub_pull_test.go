//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"testing"
	"time"
)

// phSummary is what e2e/python/pull.py prints.
type phSummary struct {
	PeerReplica   string           `json:"peer_replica"`
	VersionVector map[string]int64 `json:"version_vector"`
	Requests      int              `json:"requests"`
	Origins       map[string]struct {
		Count      int              `json:"count"`
		IDs        []string         `json:"ids"`
		OriginSeqs []int64          `json:"origin_seqs"`
		Events     []map[string]any `json:"events"`
	} `json:"origins"`
	Artifacts map[string]struct {
		SHA256    string `json:"sha256"`
		Computed  string `json:"computed"`
		SizeBytes int64  `json:"size_bytes"`
	} `json:"artifacts"`
}

// TestPyHub_PythonPullerPullsLsnode: an independent stdlib-only Python
// puller (e2e/python/pull.py, written from docs/compatibility.md#pull-protocol
// and #sync-routes) pulls a real
// `lsnode serve` to completion, in pages of 3, and ends up with exactly
// the events and artifacts the node serves.
func TestPyHub_PythonPullerPullsLsnode(t *testing.T) {
	py := phPython(t)
	const token = "pyhub-e2e-token"
	p := startLsnode(t, nodeOptions{Token: token})

	art := phTool(t, p, token, "mempalace_artifact_put", map[string]any{
		"kind": "log", "content": "build log ✓\nline 2\n", "created_by": "ci@e2e"})
	artID := art["artifact"].(map[string]any)["id"].(string)
	for i := 0; i < 7; i++ {
		args := map[string]any{"type": "task.request", "stream": "project/e2e", "room": "delegation",
			"from_agent": "alice@e2e", "to_agent": "bob@e2e", "body": fmt.Sprintf("event %d — ünïcödé 😀", i),
			"metadata": map[string]any{"i": i, "f": 1.5, "nested": map[string]any{"z": nil, "a": []any{"x"}}}}
		if i == 2 {
			args["artifact_ids"] = []any{artID}
			args["topic"], args["correlation_id"], args["status"] = "t-1", "c-1", "open"
		}
		if i == 5 {
			args["idempotency_key"] = "key-5"
		}
		phTool(t, p, token, "mempalace_event_append", args)
	}
	phTool(t, p, token, "mempalace_patch_submit", map[string]any{"content": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
		"from_agent": "bob@e2e", "stream": "project/e2e", "to_agent": "alice@e2e", "correlation_id": "c-1",
		"branch": "main", "base_commit": "0123abc"})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "python/pull.py", "--url", p.URL, "--limit", "3")
	cmd.Env = append(os.Environ(), "LSNODE_TOKEN="+token)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pull.py: %v\n%s", err, stderr.String())
	}
	var sum phSummary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, stdout.String())
	}

	vv := phVector(t, p.URL, token)
	if !maps.Equal(sum.VersionVector, vv) || len(vv) != 1 {
		t.Fatalf("python holds %v, the node %v", sum.VersionVector, vv)
	}
	total := 0
	for origin := range vv {
		served := phOps(t, p.URL, token, origin)
		got := sum.Origins[origin]
		if got.Count != len(served) || !reflect.DeepEqual(got.Events, served) {
			t.Fatalf("origin %s: python stored %d events, node serves %d\npython %v\nnode   %v",
				origin, got.Count, len(served), got.Events, served)
		}
		for i, ev := range served {
			if got.IDs[i] != ev["id"] || got.OriginSeqs[i] != int64(ev["origin_seq"].(float64)) {
				t.Fatalf("origin %s event %d: id/seq %s/%d, node %v/%v", origin, i, got.IDs[i], got.OriginSeqs[i], ev["id"], ev["origin_seq"])
			}
		}
		total += len(served)
	}
	if total != 8 || sum.PeerReplica == "?" {
		t.Fatalf("%d events (want 8: 7 appends and a patch.ready), peer %q", total, sum.PeerReplica)
	}
	if len(sum.Artifacts) != 2 {
		t.Fatalf("python holds %d artifacts, want 2 (the log and the patch)", len(sum.Artifacts))
	}
	for id, a := range sum.Artifacts {
		var rec struct {
			Artifact struct {
				SHA256    string `json:"sha256"`
				SizeBytes int64  `json:"size_bytes"`
			}
		}
		phGet(t, p.URL+"/sync/artifact?id="+id, token, &rec)
		if a.SHA256 != rec.Artifact.SHA256 || a.Computed != a.SHA256 || a.SizeBytes != rec.Artifact.SizeBytes {
			t.Fatalf("artifact %s: python %+v, node %+v", id, a, rec.Artifact)
		}
	}
	// 1 vector, 3 pages (3+3+2, the last reaching the top), 2 artifacts.
	if sum.Requests != 1+3+2 {
		t.Errorf("python made %d requests, want 6", sum.Requests)
	}
}
