//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/sync/fakehub"
)

// TestPyHub_MixedMesh: two lsnode nodes replicating over gRPC, each
// pulling a Python hub (the in-process fake) listed in its peers.json,
// and the hub pulling node 1 as a Python hub's loop would. Writes on all
// three converge: every member ends with the same vector and the same
// event dicts for every origin, including node 2's ops, which reach the
// hub only through node 1.
//
// It needs the node's wiring of the HTTP puller and the replicator
// (--grpc, --peer, --cluster-id, --http-sync-interval) and is skipped
// until serve has those flags.
func TestPyHub_MixedMesh(t *testing.T) {
	phRequireServeFlags(t, "grpc", "peer", "cluster-id", "http-sync-interval")
	mesh := startMixedMesh(t, 61, "e2e-mesh")
	hub, srv, n1, n2 := mesh.hub, mesh.srv, mesh.n1, mesh.n2

	// The hub's pull loop against node 1, owned by the test.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var lastErr struct {
		sync.Mutex
		err error
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			_, err := hub.SyncWithPeer(ctx, http.DefaultClient, n1.URL, meshNodeToken)
			lastErr.Lock()
			lastErr.err = err
			lastErr.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })

	art, err := hub.PutArtifact("patch", "--- a\n+++ b\n", "py@hub")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hub.Append(fakehub.Write{Type: "patch.ready", Stream: "project/mesh", Room: "patches", FromAgent: "py@hub",
		Body: "from the python hub", ArtifactIDs: []string{art}}); err != nil {
		t.Fatal(err)
	}
	for i, n := range []*lsnodeProc{n1, n2} {
		phTool(t, n, meshNodeToken, "mempalace_event_append", map[string]any{"type": "note", "stream": "project/mesh",
			"room": "main", "from_agent": fmt.Sprintf("agent@n%d", i+1), "body": fmt.Sprintf("from node %d ✓", i+1)})
	}
	phTool(t, n2, meshNodeToken, "mempalace_patch_submit", map[string]any{"content": "--- x\n+++ y\n",
		"from_agent": "agent@n2", "stream": "project/mesh"})

	members := []struct {
		name, url, token string
	}{{"node1", n1.URL, meshNodeToken}, {"node2", n2.URL, meshNodeToken}, {"hub", srv.URL, meshHubToken}}
	var last []map[string]int64
	converged := func() bool {
		last = last[:0]
		for _, m := range members {
			last = append(last, phVector(t, m.url, m.token))
		}
		return len(last[0]) == 3 && maps.Equal(last[0], last[1]) && maps.Equal(last[0], last[2])
	}
	if ok, _ := testwait.Poll(60*time.Second, func() (bool, string) { return converged(), "" }); !ok {
		lastErr.Lock()
		t.Fatalf("no convergence in 60s: vectors %v; hub's last pull: %v\nnode1:\n%s\nnode2:\n%s", last, lastErr.err, n1.Logs(), n2.Logs())
	}
	for origin := range last[0] {
		ref := phOps(t, members[0].url, members[0].token, origin)
		for _, m := range members[1:] {
			if got := phOps(t, m.url, m.token, origin); !reflect.DeepEqual(ref, got) {
				t.Fatalf("origin %s: %s holds\n%v\nnode1 holds\n%v", origin, m.name, got, ref)
			}
		}
	}

	// The nodes' estate shows the hub by name, reachable, without its token.
	for _, n := range []*lsnodeProc{n1, n2} {
		body := phBody(t, n.URL+"/sync/peers", meshNodeToken)
		if strings.Contains(body, meshHubToken) {
			t.Fatalf("/sync/peers shows the hub's token: %s", body)
		}
		var estate struct {
			Peers []struct {
				Name      string `json:"name"`
				URL       string `json:"url"`
				Reachable bool   `json:"reachable"`
			} `json:"peers"`
		}
		if err := json.Unmarshal([]byte(body), &estate); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range estate.Peers {
			found = found || p.Name == "pyhub" && p.URL == srv.URL && p.Reachable
		}
		if !found {
			t.Errorf("/sync/peers does not list the reachable hub: %s", body)
		}
		if m := phBody(t, n.URL+"/metrics", meshNodeToken); !strings.Contains(m, `lsnode_sync_http_peer_up{peer="pyhub"} 1`) {
			t.Errorf("/metrics lacks lsnode_sync_http_peer_up for the hub")
		}
		if strings.Contains(n.Logs(), meshHubToken) {
			t.Errorf("a node logged the hub's token")
		}
	}
}

func phBody(t *testing.T, url, token string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
