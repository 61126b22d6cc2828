package grpcpeer

import (
	"testing"
	"time"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
)

func batchFrame(pullID uint64, body string) *pb.Frame {
	return &pb.Frame{Kind: &pb.Frame_Batch{Batch: &pb.Batch{PullId: pullID, Ops: []*pb.Op{{Body: body}}}}}
}

func TestOutbox_Bounds(t *testing.T) {
	t0 := time.Unix(0, 0)
	body := string(make([]byte, 1000))
	o := newOutbox(2500)
	for i := range 2 {
		if ok, _ := o.put(batchFrame(0, body), t0); !ok {
			t.Fatalf("push %d refused below the limit", i)
		}
	}
	if ok, stalled := o.put(batchFrame(0, body), t0); ok || stalled {
		t.Fatalf("push over the limit: accepted %v stalled %v, want dropped", ok, stalled)
	}
	if ok, stalled := o.put(batchFrame(7, body), t0); !ok || stalled {
		t.Fatalf("pull answer over the limit: accepted %v stalled %v, want queued", ok, stalled)
	}
	o.put(batchFrame(7, body), t0)
	if _, stalled := o.put(batchFrame(7, body), t0); !stalled {
		t.Fatalf("pull answer over twice the limit not reported stalled")
	}
	if o.stalledSince(t0.Add(time.Second), time.Second) {
		t.Fatalf("stalled at exactly the timeout")
	}
	if !o.stalledSince(t0.Add(time.Second+1), time.Second) {
		t.Fatalf("not stalled past the timeout with frames waiting")
	}
	o.take()
	o.sent(t0.Add(2 * time.Second))
	if o.stalledSince(t0.Add(2*time.Second+time.Millisecond), time.Second) {
		t.Fatalf("stalled right after a send")
	}
}
