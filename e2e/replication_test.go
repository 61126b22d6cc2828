//go:build e2e

package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// Replication between real `lsnode serve` processes on 127.0.0.1 with
// static --peer lists: concurrent writes on every node converge,
// a node killed with SIGKILL catches up after its restart, and a node of
// another cluster is refused before anything crosses.

const (
	rpCluster       = "e2e-rep"
	rpConvergeLimit = 60 * time.Second // a few seconds here; the bound is for a loaded CI box
)

// rpMesh starts one node per cluster id, each with a fixed gRPC port and
// the given static peers (indexes into the same list). It returns the
// nodes and their gRPC addresses.
func rpMesh(t *testing.T, clusters []string, peers [][]int) ([]*lsnodeProc, []string) {
	t.Helper()
	grpc := make([]string, len(clusters))
	for i := range grpc {
		grpc[i] = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	}
	nodes := make([]*lsnodeProc, len(clusters))
	for i, cid := range clusters {
		args := []string{"--cluster-id", cid, "--name", fmt.Sprintf("r%d", i), "--grpc", grpc[i]}
		for _, j := range peers[i] {
			args = append(args, "--peer", grpc[j])
		}
		nodes[i] = startLsnode(t, nodeOptions{Args: args})
	}
	return nodes, grpc
}

// rpReplicaID is p's replica id.
func rpReplicaID(t *testing.T, p *lsnodeProc) string {
	t.Helper()
	var out struct {
		ReplicaID string `json:"replica_id"`
	}
	if err := rpDo(p, "GET", "/sync/version_vector", nil, &out); err != nil || out.ReplicaID == "" {
		t.Fatalf("replica id of %s: %v %+v", p.URL, err, out)
	}
	return out.ReplicaID
}

// TestReplication_ConcurrentAppendsConverge: three nodes, each a static
// peer of the other two. 3x100 appends made at once (4 writers per node)
// converge: equal version vectors, every acknowledged id on every node.
// Then one node is killed with SIGKILL; appends made on the others while
// it is down reach it after its restart on the same data dir.
func TestReplication_ConcurrentAppendsConverge(t *testing.T) {
	lsnodeBin(t)
	full := [][]int{{1, 2}, {0, 2}, {0, 1}}
	nodes, _ := rpMesh(t, []string{rpCluster, rpCluster, rpCluster}, full)
	start := time.Now()
	ids := rpConcurrentAppends(t, nodes, 100, 4)
	if len(ids) != 300 {
		t.Fatalf("%d acknowledged appends, want 300", len(ids))
	}
	rpConverged(t, rpConvergeLimit, ids, nodes...)
	t.Logf("300 concurrent appends on 3 nodes: written and converged in %v", time.Since(start).Round(time.Millisecond))
	vv, _ := rpVector(nodes[0])
	if len(vv) != 3 {
		t.Fatalf("version vector %v: want the 3 origins", vv)
	}
	for _, p := range nodes {
		if vv[rpReplicaID(t, p)] != 100 {
			t.Fatalf("version vector %v: want 100 ops of each origin", vv)
		}
	}

	// SIGKILL one node; write on the other two while it is down.
	down := nodes[2]
	downID := rpReplicaID(t, down)
	down.Kill()
	killed := time.Now()
	more := rpConcurrentAppends(t, nodes[:2], 50, 2)
	ids = append(ids, more...)
	rpConverged(t, rpConvergeLimit, ids, nodes[:2]...)

	down.Restart()
	if got := rpReplicaID(t, down); got != downID {
		t.Fatalf("restarted node has replica id %s, want %s (same data dir)", got, downID)
	}
	restarted := time.Now()
	rpConverged(t, rpConvergeLimit, ids, nodes...)
	t.Logf("SIGKILLed node: down %v, caught up on %d appends %v after its restart",
		restarted.Sub(killed).Round(time.Millisecond), len(more), time.Since(restarted).Round(time.Millisecond))
}

// TestReplication_ForeignClusterRefused: a node of another cluster id,
// configured as a static peer in both directions, is refused at the
// handshake. Both logs say so, the member table and `lsnode peers` show it
// refused, and no op crosses either way, while the two nodes of the same
// cluster replicate.
func TestReplication_ForeignClusterRefused(t *testing.T) {
	lsnodeBin(t)
	// 0 and 1 are the cluster; 2 is a stranger that 0 dials and that
	// dials 0.
	nodes, grpc := rpMesh(t, []string{rpCluster, rpCluster, "e2e-stranger"}, [][]int{{1, 2}, {0}, {0}})
	a, b, stranger := nodes[0], nodes[1], nodes[2]
	aID, bID, sID := rpReplicaID(t, a), rpReplicaID(t, b), rpReplicaID(t, stranger)
	aGRPC, strangerGRPC := grpc[0], grpc[2]

	ids := append(rpMustAppend(t, a, "agent-a", 5), rpMustAppend(t, b, "agent-b", 5)...)
	strangerIDs := rpMustAppend(t, stranger, "agent-stranger", 5)

	// The refusal: logged on both ends, shown in both member tables.
	rpLogsContain(t, 30*time.Second, a, "cluster id mismatch")
	rpLogsContain(t, 30*time.Second, stranger, "cluster id mismatch")
	rpWaitRefused(t, a, strangerGRPC)
	rpWaitRefused(t, stranger, aGRPC)

	code, out, errOut := a.CLI("peers")
	if code != 0 {
		t.Fatalf("lsnode peers: exit %d\n%s%s", code, out, errOut)
	}
	row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(strangerGRPC) + `\s.*\brefused\b`)
	if !row.MatchString(out) {
		t.Fatalf("lsnode peers does not show %s refused:\n%s", strangerGRPC, out)
	}
	code, out, _ = a.CLI("peers", "--status", "refused", "--json")
	if code != 0 || !strings.Contains(out, strangerGRPC) || strings.Contains(out, `"alive"`) {
		t.Fatalf("lsnode peers --status refused --json: exit %d\n%s", code, out)
	}

	// Writes made after the refusal still flow inside the cluster; once
	// they have, nothing of the stranger is on either node, nor anything
	// of theirs on the stranger.
	ids = append(ids, rpMustAppend(t, a, "agent-a", 5)...)
	rpConverged(t, rpConvergeLimit, ids, a, b)
	for _, p := range []*lsnodeProc{a, b} {
		vv, err := rpVector(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := vv[sID]; ok || len(vv) != 2 {
			t.Fatalf("%s: version vector %v: want only %s and %s", p.URL, vv, aID, bID)
		}
		have, err := rpOpIDs(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, n := rpMissing(strangerIDs, have); n != len(strangerIDs) {
			t.Fatalf("%s holds %d of the stranger's events", p.URL, len(strangerIDs)-n)
		}
	}
	vv, err := rpVector(stranger)
	if err != nil {
		t.Fatal(err)
	}
	if len(vv) != 1 || vv[sID] != 5 {
		t.Fatalf("stranger's version vector %v: want only its own 5 ops", vv)
	}
}

// rpWaitRefused polls until p's member table shows the peer at grpcAddr
// refused.
func rpWaitRefused(t *testing.T, p *lsnodeProc, grpcAddr string) {
	t.Helper()
	testwait.Until(t, 30*time.Second, fmt.Sprintf("%s to show %s refused", p.URL, grpcAddr), func() bool {
		ms, err := rpMembers(p)
		if err != nil {
			return false
		}
		for _, m := range ms {
			if m.GRPCAddr == grpcAddr && m.State == "refused" {
				return true
			}
		}
		return false
	})
}
