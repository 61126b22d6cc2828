package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// TestCheckOps_ParallelMatchesOneByOne: a batch large enough to be checked
// by several goroutines gets, op for op, what checkRemoteEvent says of
// each alone, invalid ops included.
func TestCheckOps_ParallelMatchesOneByOne(t *testing.T) {
	ops := newBenchGen(3).batch(4 * parallelCheckMin).Ops
	for i := 0; i < len(ops); i += 37 { // every 37th op is broken in some way
		switch i % 3 {
		case 0:
			ops[i].Event.Stream = ""
		case 1:
			ops[i].Event.HLC = "not-a-stamp"
		default:
			ops[i].Event.Metadata = []byte(`[1]`)
		}
	}
	got := checkOps(ops)
	invalid := 0
	for i, op := range ops {
		clean, parts, err := checkRemoteEvent(op.Event)
		want := checkedOp{clean: clean, parts: parts, err: err}
		if fmt.Sprint(got[i].err) != fmt.Sprint(want.err) || !reflect.DeepEqual(got[i].clean, want.clean) || !reflect.DeepEqual(got[i].parts, want.parts) {
			t.Fatalf("op %d: checkOps %+v, one by one %+v", i, got[i], want)
		}
		if err != nil {
			invalid++
		}
	}
	if invalid != (len(ops)+36)/37 {
		t.Fatalf("%d invalid ops, want %d", invalid, (len(ops)+36)/37)
	}
}

// TestApplyChecked_SameAsApplyBatch: a batch checked ahead and applied
// with ApplyChecked leaves what ApplyBatch leaves, and an unchecked one is
// refused without writing.
func TestApplyChecked_SameAsApplyBatch(t *testing.T) {
	gen := newBenchGen(3)
	ops := gen.batch(300).Ops
	ops[7].Event.Type = "" // invalid: quarantined by both
	a, _ := openReplica(t, repD)
	b, _ := openReplica(t, repD)
	ctx := context.Background()
	resA, err := a.ApplyBatch(ctx, Batch{Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	resB, err := b.ApplyChecked(ctx, CheckBatch(Batch{Ops: ops}))
	if err != nil {
		t.Fatal(err)
	}
	if fmtResult(resA) != fmtResult(resB) || resB.Quarantined != 1 {
		t.Fatalf("ApplyBatch %s, ApplyChecked %s; want the same with one quarantined", fmtResult(resA), fmtResult(resB))
	}
	if da, db := dump(t, a), dump(t, b); da != db {
		t.Fatalf("stores differ:\n%s\n---\n%s", da, db)
	}
	if _, err := b.ApplyChecked(ctx, CheckedBatch{batch: Batch{Ops: gen.batch(1).Ops}}); err == nil {
		t.Fatal("an unchecked batch was applied")
	}
}
