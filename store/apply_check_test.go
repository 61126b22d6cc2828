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

// TestApplyCheckedBatches_SameAsOneByOne: batches written in one
// transaction leave what ApplyBatch leaves applying them one by one, each
// with its own result, and one unchecked batch refuses them all.
func TestApplyCheckedBatches_SameAsOneByOne(t *testing.T) {
	gen := newBenchGen(5)
	batches := []Batch{gen.batch(200), gen.batch(1), gen.batch(350)}
	batches[2].Ops[11].Event.Type = "" // invalid: quarantined by both
	a, _ := openReplica(t, repD)
	b, _ := openReplica(t, repD)
	ctx := context.Background()
	var want []string
	for _, bt := range batches {
		res, err := a.ApplyBatch(ctx, bt)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, fmtResult(res))
	}
	cs := []CheckedBatch{CheckBatch(batches[0]), CheckBatch(batches[1]), CheckBatch(batches[2])}
	res, err := b.ApplyCheckedBatches(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, fmtResult(r))
	}
	if !reflect.DeepEqual(got, want) || res[2].Quarantined != 1 {
		t.Fatalf("ApplyCheckedBatches %v, one by one %v; want the same with one quarantined in the third", got, want)
	}
	if da, db := dump(t, a), dump(t, b); da != db {
		t.Fatalf("stores differ:\n%s\n---\n%s", da, db)
	}
	before := dump(t, b)
	next := gen.batch(2)
	if _, err := b.ApplyCheckedBatches(ctx, []CheckedBatch{CheckBatch(next), {batch: gen.batch(1)}}); err == nil {
		t.Fatal("a call with an unchecked batch was applied")
	}
	if after := dump(t, b); after != before {
		t.Fatal("a refused call stored something")
	}
}
