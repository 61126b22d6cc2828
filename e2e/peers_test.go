//go:build e2e

package e2e

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
)

// `lsnode peers` as an operator reads it after a start that went wrong
// and after a crash: a node whose gossip join reaches none of its seeds
// says so (with the seeds and the error) and fails until it joins; a
// peer killed with SIGKILL keeps the time of its last sync.

// TestPeers_JoinPending: a node seeded with an address where nothing
// listens yet reports its join pending, naming the seed and the error,
// and exits 1; once a node listens there, the retries join it and
// `lsnode peers` lists both and exits 0.
func TestPeers_JoinPending(t *testing.T) {
	lsnodeBin(t)
	seedAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	lone := mbStart(t, "lone", mbOptions{join: seedAddr})
	var code int
	var out, errOut string
	testwait.Until(t, 10*time.Second, "lsnode peers to report the join pending", func() bool {
		code, out, errOut = lone.p.CLI("peers")
		return code == 1 && strings.Contains(errOut, "gossip join pending")
	})
	t.Logf("lsnode peers on a node whose seed is down: exit %d\nstdout: %sstderr: %s", code, out, errOut)
	if out != "no peer replicas; 0 agents active\n" || !strings.Contains(errOut, seedAddr) ||
		!strings.Contains(errOut, "connection refused") || !regexp.MustCompile(`\d+ attempts? reached none`).MatchString(errOut) {
		t.Fatalf("lsnode peers: want the seed %s, the attempts and the error:\nstdout %q\nstderr %q", seedAddr, out, errOut)
	}
	code, out, _ = lone.p.CLI("peers", "--json")
	if code != 1 || !strings.Contains(out, `"pending": true`) || !strings.Contains(out, seedAddr) {
		t.Fatalf("lsnode peers --json: exit %d, want the pending join:\n%s", code, out)
	}

	// The seed comes up; no rejoin interval (30 s) passes before the
	// retries reach it.
	seed := startLsnode(t, nodeOptions{Args: []string{"--cluster-id", mbCluster, "--name", "seed",
		"--gossip", seedAddr, "--grpc", "127.0.0.1:" + strconv.Itoa(freePort(t))}})
	up := time.Now()
	rpWaitStates(t, 10*time.Second, []*lsnodeProc{lone.p, seed}, rpAll("alive", "lone", "seed"))
	t.Logf("the pending join reached the seed %v after it started", time.Since(up).Round(time.Millisecond))
	code, out, errOut = lone.p.CLI("peers")
	if code != 0 || errOut != "" || !regexp.MustCompile(`(?m)^seed\s.*\salive\s`).MatchString(out) {
		t.Fatalf("lsnode peers after the join: exit %d\n%s%s", code, out, errOut)
	}
}

// TestPeers_KilledPeerKeepsLastSync: three nodes replicate; the one whose
// replica id sorts in the middle is killed with SIGKILL, so one survivor
// dialled it and it dialled the other (both sides of a session end). Once
// it is dead everywhere, both survivors still show when they last synced
// with it, in `lsnode peers --json` and in the table, no earlier than
// before the kill.
func TestPeers_KilledPeerKeepsLastSync(t *testing.T) {
	lsnodeBin(t)
	seed := mbStart(t, "k0", mbOptions{})
	nodes := []*mbNode{seed, mbStart(t, "k1", mbOptions{join: seed.gossip}), mbStart(t, "k2", mbOptions{join: seed.gossip})}
	all := mbProcs(nodes...)
	rpWaitStates(t, mbStateLimit, all, rpAll("alive", mbNames(nodes...)...))
	var written []string
	for _, n := range nodes {
		written = append(written, rpMustAppend(t, n.p, "agent-"+n.name, 3)...)
	}
	rpConverged(t, rpConvergeLimit, written, all...)

	slices.SortFunc(nodes, func(a, b *mbNode) int { return strings.Compare(rpReplicaID(t, a.p), rpReplicaID(t, b.p)) })
	victim, survivors := nodes[1], []*mbNode{nodes[0], nodes[2]}
	before := map[string]time.Time{}
	for _, s := range survivors {
		testwait.Until(t, mbStateLimit, s.name+" to show a last sync with "+victim.name, func() bool {
			at, ok := pkLastSync(t, s, victim.name)
			before[s.name] = at
			return ok
		})
	}

	victim.p.Kill()
	rpWaitStates(t, mbStateLimit, mbProcs(survivors...), map[string]string{victim.name: "dead"})
	for _, s := range survivors {
		at, ok := pkLastSync(t, s, victim.name)
		if !ok || at.Before(before[s.name]) {
			t.Fatalf("%s: dead %s has last_sync %v (set %v), want %v or later", s.name, victim.name, at, ok, before[s.name])
		}
		code, out, errOut := s.p.CLI("peers")
		row := regexp.MustCompile(`(?m)^` + victim.name + `\s.*$`).FindString(out)
		if code != 0 || !strings.Contains(row, " dead ") || !regexp.MustCompile(`\s(just now|\d+s ago)\s`).MatchString(row) {
			t.Fatalf("%s: lsnode peers: exit %d, want %s dead with the age of its last sync:\n%s%s", s.name, code, victim.name, out, errOut)
		}
		t.Logf("%s after the kill of %s: %s", s.name, victim.name, row)
	}
}

// pkLastSync is name's last_sync in at's `lsnode peers --json`; false
// when it is null.
func pkLastSync(t *testing.T, at *mbNode, name string) (time.Time, bool) {
	t.Helper()
	for _, m := range rpCLIMembers(t, at.p) {
		if m.Name != name || m.LastSync == nil {
			continue
		}
		ts, err := time.Parse(time.RFC3339, *m.LastSync)
		if err != nil {
			t.Fatalf("%s: last_sync %q of %s: %v", at.name, *m.LastSync, name, err)
		}
		return ts, true
	}
	return time.Time{}, false
}
