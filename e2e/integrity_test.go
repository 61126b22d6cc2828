//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/sync/fakehub"
)

// integrityStatus is the integrity block of /statusz.
type integrityStatus struct {
	Fingerprint  string `json:"key_fingerprint"`
	Unsigned     string `json:"unsigned_origins"`
	Verified     int64  `json:"ops_verified"`
	Refused      int64  `json:"ops_refused"`
	KeyConflicts int64  `json:"key_conflicts"`
	Signed       int64  `json:"ops_signed"`
}

func statuszIntegrity(t *testing.T, p *lsnodeProc, token string) (integrityStatus, int64) {
	t.Helper()
	var st struct {
		Integrity integrityStatus `json:"integrity"`
		Log       struct {
			Quarantined int64 `json:"quarantined"`
		} `json:"log"`
	}
	phGet(t, p.URL+"/statusz", token, &st)
	return st.Integrity, st.Log.Quarantined
}

// TestIntegrity_SignedEndToEnd: three `lsnode serve` processes in a line
// (n1 - n2 - n3, so n1's ops reach n3 only relayed by n2), unsigned
// origins refused. Every write converges, every node verified the ops it
// received (n3 n1's through the relay, with n1's key learned from n2), and
// nothing was refused or quarantined. node.key is 0600 and keeps its
// fingerprint across a restart.
func TestIntegrity_SignedEndToEnd(t *testing.T) {
	phRequireServeFlags(t, "grpc", "peer", "cluster-id", "unsigned-origins")
	const token = "integrity-token"
	g := []int{freePort(t), freePort(t), freePort(t)}
	start := func(i int, peers ...int) *lsnodeProc {
		args := []string{"--grpc", "127.0.0.1:" + strconv.Itoa(g[i]), "--cluster-id", "e2e-sign", "--unsigned-origins", "refuse"}
		for _, p := range peers {
			args = append(args, "--peer", "127.0.0.1:"+strconv.Itoa(g[p]))
		}
		return startLsnode(t, nodeOptions{Token: token, Args: args})
	}
	n1, n2, n3 := start(0, 1), start(1, 0, 2), start(2, 1)
	nodes := []*lsnodeProc{n1, n2, n3}
	const perNode = 20
	for i, n := range nodes {
		for j := range perNode {
			phTool(t, n, token, "mempalace_event_append", map[string]any{"type": "note", "stream": "project/sign",
				"room": "main", "from_agent": fmt.Sprintf("agent@n%d", i+1), "body": fmt.Sprintf("op %d of node %d", j, i+1)})
		}
	}
	phTool(t, n1, token, "mempalace_patch_submit", map[string]any{"content": "--- a\n+++ b\n",
		"from_agent": "agent@n1", "stream": "project/sign"})
	var vv []map[string]int64
	testwait.Until(t, 60*time.Second, "three nodes converge", func() bool {
		vv = vv[:0]
		for _, n := range nodes {
			vv = append(vv, phVector(t, n.URL, token))
		}
		return len(vv[0]) == 3 && maps.Equal(vv[0], vv[1]) && maps.Equal(vv[0], vv[2])
	})
	// Each node received the other two origins' ops beyond what it held:
	// at least 2*perNode verified (more when the same op came twice).
	fps := map[string]bool{}
	for i, n := range nodes {
		in, quarantined := statuszIntegrity(t, n, token)
		t.Logf("node %d: %+v, quarantined %d", i+1, in, quarantined)
		if in.Verified < 2*perNode || in.Refused != 0 || in.KeyConflicts != 0 || quarantined != 0 || in.Unsigned != "refuse" {
			t.Errorf("node %d: integrity %+v, quarantined %d; want >= %d verified, nothing refused", i+1, in, quarantined, 2*perNode)
		}
		fps[in.Fingerprint] = true
		fi, err := os.Stat(filepath.Join(n.opts.DataDir, "node.key"))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("node %d: node.key %v, mode %v; want 0600", i+1, err, fi.Mode().Perm())
		}
	}
	if len(fps) != 3 {
		t.Errorf("fingerprints %v: want three distinct keys", fps)
	}
	// The key survives a restart: same fingerprint, still converging.
	before, _ := statuszIntegrity(t, n3, token)
	n3.Restart()
	after, _ := statuszIntegrity(t, n3, token)
	if after.Fingerprint != before.Fingerprint {
		t.Errorf("n3's key changed across a restart: %s -> %s", before.Fingerprint, after.Fingerprint)
	}
	phTool(t, n1, token, "mempalace_event_append", map[string]any{"type": "note", "stream": "project/sign",
		"room": "main", "from_agent": "agent@n1", "body": "after the restart"})
	want := phVector(t, n1.URL, token)
	testwait.Until(t, 60*time.Second, "n3 catches up after its restart", func() bool {
		return maps.Equal(phVector(t, n3.URL, token), want)
	})
	if in, q := statuszIntegrity(t, n3, token); in.Refused != 0 || q != 0 || in.Verified == 0 {
		t.Errorf("n3 after restart: %+v, quarantined %d", in, q)
	}
}

// TestIntegrity_MixedMeshRefusesUnsigned: the mixed mesh of
// TestPyHub_MixedMesh (two lsnode nodes over gRPC, each pulling a Python
// hub, the hub pulling node 1) with --unsigned-origins=refuse. The hub's
// own op is refused by both nodes (quarantined as unsigned, its slot not
// consumed, the hub's origin absent from their vectors), while the lsnode
// origins still converge on all three members.
func TestIntegrity_MixedMeshRefusesUnsigned(t *testing.T) {
	phRequireServeFlags(t, "grpc", "peer", "cluster-id", "http-sync-interval", "unsigned-origins")
	mesh := startMixedMesh(t, 62, "e2e-mesh-refuse", "--unsigned-origins", "refuse")
	hub, srv, n1, n2 := mesh.hub, mesh.srv, mesh.n1, mesh.n2
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			hub.SyncWithPeer(ctx, http.DefaultClient, n1.URL, meshNodeToken) //nolint:errcheck // convergence is checked below
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })

	if _, err := hub.Append(fakehub.Write{Type: "note", Stream: "project/mesh", Room: "main", FromAgent: "py@hub",
		Body: "unsigned, from the python hub"}); err != nil {
		t.Fatal(err)
	}
	for i, n := range []*lsnodeProc{n1, n2} {
		phTool(t, n, meshNodeToken, "mempalace_event_append", map[string]any{"type": "note", "stream": "project/mesh",
			"room": "main", "from_agent": fmt.Sprintf("agent@n%d", i+1), "body": fmt.Sprintf("from node %d", i+1)})
	}
	r1, r2 := replicaOf(t, n1, meshNodeToken), replicaOf(t, n2, meshNodeToken)
	var v1, v2, vh map[string]int64
	testwait.Until(t, 60*time.Second, "both nodes refuse the hub's op and the lsnode origins converge", func() bool {
		v1, v2, vh = phVector(t, n1.URL, meshNodeToken), phVector(t, n2.URL, meshNodeToken), phVector(t, srv.URL, meshHubToken)
		in1, q1 := statuszIntegrity(t, n1, meshNodeToken)
		in2, q2 := statuszIntegrity(t, n2, meshNodeToken)
		return len(v1) == 2 && maps.Equal(v1, v2) && v1[r1] > 0 && v1[r2] > 0 && vh[r1] == v1[r1] && vh[r2] == v1[r2] &&
			q1 >= 1 && q2 >= 1 && in1.Refused >= 1 && in2.Refused >= 1
	})
	for _, v := range []map[string]int64{v1, v2} {
		if _, ok := v[hub.ReplicaID()]; ok {
			t.Errorf("a node applied the unsigned hub's ops: %v", v)
		}
	}
}

// replicaOf returns a node's replica id (from its /statusz).
func replicaOf(t *testing.T, n *lsnodeProc, token string) string {
	t.Helper()
	var st struct {
		ReplicaID string `json:"replica_id"`
	}
	phGet(t, n.URL+"/statusz", token, &st)
	return st.ReplicaID
}
