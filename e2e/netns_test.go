//go:build e2e

package e2e

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestNetnsHelper checks the helper itself: hosts reach each other and the
// test, a partition cuts only across its sides, Isolate cuts one host off,
// Heal restores all, and cleanup leaves no namespace or link behind.
func TestNetnsHelper(t *testing.T) {
	var tn *testNet
	t.Run("net", func(t *testing.T) {
		tn = newTestNet(t, 3, 201)
		var lns []net.Listener
		for i := 0; i < 3; i++ {
			ln := tn.Listen(i, "tcp", net.JoinHostPort(tn.Addr(i), "0"))
			lns = append(lns, ln)
			go func() { // accept and close, until the listener closes
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
		}
		// A connection that should get through has time to (a loaded
		// box); one that should not is given 300 ms: a cut that leaks
		// would connect within microseconds.
		dial := func(from, to int, want bool) bool {
			timeout := 300 * time.Millisecond
			if want {
				timeout = 5 * time.Second
			}
			c, err := tn.Dial(from, "tcp", lns[to].Addr().String(), timeout)
			if err == nil {
				c.Close()
			}
			return err == nil
		}
		check := func(what string, want [3][3]bool, test [3]bool) {
			t.Helper()
			for a := 0; a < 3; a++ {
				for b := 0; b < 3; b++ {
					if a != b && dial(a, b, want[a][b]) != want[a][b] {
						t.Errorf("%s: host %d -> host %d reachable = %v, want %v", what, a, b, !want[a][b], want[a][b])
					}
				}
				if dial(-1, a, test[a]) != test[a] {
					t.Errorf("%s: test -> host %d reachable = %v, want %v", what, a, !test[a], test[a])
				}
			}
		}
		all := [3][3]bool{{true, true, true}, {true, true, true}, {true, true, true}}
		check("fresh", all, [3]bool{true, true, true})
		tn.Partition([]int{0, 1}, []int{2})
		check("partitioned", [3][3]bool{{true, true, false}, {true, true, false}, {false, false, true}}, [3]bool{true, true, true})
		tn.Heal()
		check("healed", all, [3]bool{true, true, true})
		tn.Isolate(1)
		check("isolated", [3][3]bool{{true, false, true}, {false, true, false}, {true, false, true}}, [3]bool{true, false, true})
		tn.Heal()
		check("healed again", all, [3]bool{true, true, true})
	})
	if tn == nil {
		return
	}
	out, _ := ipOut("netns", "list")
	if strings.Contains(out, tn.sw) || strings.Contains(out, tn.hosts[0]) {
		t.Errorf("namespaces left after cleanup:\n%s", out)
	}
	out, _ = ipOut("-o", "link", "show")
	if strings.Contains(out, tn.uplink("")) {
		t.Errorf("uplinks left after cleanup:\n%s", out)
	}
	out, _ = ipOut("-4", "-o", "route", "show", "root", "10.213.201.0/24")
	if strings.TrimSpace(out) != "" {
		t.Errorf("routes left after cleanup:\n%s", out)
	}
}

// TestNetnsNode runs lsnode serve inside a test host: the harness reaches
// it at the host's address, and from another host it answers too.
func TestNetnsNode(t *testing.T) {
	tn := newTestNet(t, 2, 202)
	// Off loopback, serve wants a token.
	p := startLsnode(t, nodeOptions{Netns: tn.Netns(0), Host: tn.Addr(0), Token: "netns-test-token"})
	if code, out, errOut := p.CLI("peers"); code != 0 {
		t.Fatalf("lsnode peers on a node in a namespace: exit %d\n%s%s", code, out, errOut)
	}
	out, err := tn.Command(1, "curl", "-fsS", "--max-time", "5", p.URL+"/healthz").CombinedOutput()
	if err != nil {
		t.Fatalf("curl from host 1: %v\n%s", err, out)
	}
}
