package grpcpeer

import (
	"testing"

	"github.com/lsnode/lsnode/store"
)

func opsOf(origin string, from, n int) []store.Op {
	out := make([]store.Op, 0, n+8) // spare capacity: appending in place would be visible
	for i := range n {
		out = append(out, store.Op{Event: store.Event{OriginReplica: origin, OriginSeq: int64(from + i)}})
	}
	return out
}

func TestSession_MoreLocalCoalescesUpToBatchOps(t *testing.T) {
	cfg := DefaultConfig("c")
	cfg.BatchOps = 5
	s := &session{r: &Replicator{cfg: cfg}, local: make(chan []store.Op, 8)}
	first, second, third := opsOf("a", 1, 2), opsOf("a", 3, 2), opsOf("a", 5, 2)
	s.local <- second
	s.local <- third
	s.local <- opsOf("a", 7, 1)

	got := seqsOf(s.moreLocal(first))
	if len(got) != 6 || got[5] != 6 {
		t.Fatalf("took seqs %v, want 1..6: the lists waiting until BatchOps is reached", got)
	}
	if len(first) != 2 || first[:3][2].Event.OriginSeq != 0 {
		t.Fatalf("the first list (shared with other sessions) was written to: %+v", first[:3])
	}
	if len(s.local) != 1 {
		t.Fatalf("%d lists left in the queue, want 1", len(s.local))
	}
	if alone := seqsOf(s.moreLocal(opsOf("b", 1, 1))); len(alone) != 2 {
		t.Fatalf("with one list waiting: seqs %v, want 2 ops", alone)
	}
	if alone := seqsOf(s.moreLocal(opsOf("b", 2, 1))); len(alone) != 1 {
		t.Fatalf("with an empty queue: seqs %v, want 1 op", alone)
	}
}

// seqsOf lists the origin_seq of every op in lists, in order.
func seqsOf(lists [][]store.Op) []int64 {
	var out []int64
	for _, ops := range lists {
		for _, op := range ops {
			out = append(out, op.Event.OriginSeq)
		}
	}
	return out
}
