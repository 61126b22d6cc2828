package membership

import (
	"testing"
	"time"

	"github.com/hashicorp/memberlist"
)

// stateOf is name's state in the table, or "" when it is not listed.
func stateOf(tb *table, name string) State {
	for _, m := range tb.snapshot() {
		if m.Name == name {
			return m.State
		}
	}
	return ""
}

// A graceful leave is shown left whatever order its three signals reach a
// member in (the leaving metadata and memberlist's leave travel by
// gossip, the notice directly); a member that only goes down is dead, and
// a leaver that comes back up and later fails is dead too.
func TestTable_LeaveSignalsInAnyOrder(t *testing.T) {
	plain, err := encodeMeta(Meta{ReplicaID: "rep_n1", ClusterID: testCluster}, false)
	if err != nil {
		t.Fatal(err)
	}
	flagged, err := encodeMeta(Meta{ReplicaID: "rep_n1", ClusterID: testCluster}, true)
	if err != nil {
		t.Fatal(err)
	}
	node := func(meta []byte) *memberlist.Node { return &memberlist.Node{Name: "n1", Meta: meta} }
	for _, tc := range []struct {
		name  string
		steps func(tb *table)
		want  State
	}{
		{"metadata, notice, leave", func(tb *table) { tb.upsert(node(flagged)); tb.leaving("n1"); tb.down(node(flagged)) }, StateLeft},
		{"notice, leave; the metadata lost", func(tb *table) { tb.leaving("n1"); tb.down(node(plain)) }, StateLeft},
		{"leave, then the notice; the metadata lost", func(tb *table) { tb.down(node(plain)); tb.leaving("n1") }, StateLeft},
		{"metadata, leave; the notice lost", func(tb *table) { tb.upsert(node(flagged)); tb.down(node(flagged)) }, StateLeft},
		{"declared dead, nothing announced", func(tb *table) { tb.down(node(plain)) }, StateDead},
		{"notice, then back up without leaving, then dead", func(tb *table) {
			tb.leaving("n1")
			tb.upsert(node(plain))
			tb.down(node(plain))
		}, StateDead},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := newTable("n0", time.Second, time.Now)
			tb.upsert(node(plain))
			tc.steps(tb)
			if got := stateOf(tb, "n1"); got != tc.want {
				t.Fatalf("n1 is %s, want %s", got, tc.want)
			}
		})
	}
}

// A notice naming no member marks nothing, and a forgotten member's notice
// is forgotten with it.
func TestTable_LeavingNoticeBounds(t *testing.T) {
	tb := newTable("n0", time.Second, time.Now)
	tb.leaving("stranger")
	if len(tb.leavers) != 0 || stateOf(tb, "stranger") != "" {
		t.Fatalf("a notice for no member was kept: %v", tb.leavers)
	}
	plain, err := encodeMeta(Meta{ReplicaID: "rep_n1", ClusterID: testCluster}, false)
	if err != nil {
		t.Fatal(err)
	}
	tb.upsert(&memberlist.Node{Name: "n1", Meta: plain})
	tb.leaving("n1")
	tb.down(&memberlist.Node{Name: "n1", Meta: plain})
	if gone := tb.forget(time.Now().Add(time.Hour)); len(gone) != 1 || len(tb.leavers) != 0 {
		t.Fatalf("forgot %v, notices left %v", gone, tb.leavers)
	}
}

// The notice arrives as a user message: userMessage hands it to the
// table, and a member recorded dead turns left.
func TestMembership_LeavingNoticeMessage(t *testing.T) {
	hub := newHub(t)
	nodes := startCluster(t, hub, 2, nil)
	plain, err := encodeMeta(Meta{ReplicaID: "rep_x", ClusterID: testCluster}, false)
	if err != nil {
		t.Fatal(err)
	}
	obs := nodes[0].m
	obs.table.upsert(&memberlist.Node{Name: "x", Meta: plain})
	obs.table.down(&memberlist.Node{Name: "x", Meta: plain})
	obs.userMessage(append([]byte{msgLeaving}, "x"...))
	if got := stateOf(obs.table, "x"); got != StateLeft {
		t.Fatalf("x is %s after its notice, want left", got)
	}
}
