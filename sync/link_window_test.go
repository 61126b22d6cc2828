package lssync_test

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/simnet"
)

// TestLink_PullAnswerBoundedInBytes: ops naming artifacts several times
// BatchBytes (a patch_submit of a 4 MiB artifact against the 1 MiB
// default) each go in a batch of their own. A pull answer of PullWindow
// such batches must still fit the bound the serving session's outbox
// holds a pull answer to (2*OutboxBytes, past which the session ends as
// stalled; sync/grpcpeer): otherwise every pull of that range ends the session and the
// range is never replicated. The puller still gets everything, window
// after window.
func TestLink_PullAnswerBoundedInBytes(t *testing.T) {
	cfg := lssync.DefaultConfig("c1")
	cfg.BatchBytes = 1000
	cfg.PullWindow = 4
	outboxBytes := cfg.PullWindow * cfg.BatchBytes // the least a session's OutboxBytes may be
	la, lb := simnet.NewMemLog("rep_a", fixedWall), simnet.NewMemLog("rep_b", fixedWall)
	const n = 8
	for range n {
		lb.Append(strings.Repeat("x", 3*cfg.BatchBytes), true)
	}
	a, b := lssync.NewLink(cfg, la, true), lssync.NewLink(cfg, lb, false)
	b.Open(t0)
	links := [2]*lssync.Link{a, b}
	queue := [2][]*pb.Frame{a.Open(t0), nil}
	pulls := 0
	for len(queue[0])+len(queue[1]) > 0 {
		for from := range 2 {
			frames := queue[from]
			queue[from] = nil
			for _, f := range frames {
				reply, err := links[1-from].Handle(context.Background(), f, t0)
				if err != nil {
					t.Fatalf("handle %s: %v", lssync.FrameKind(f), err)
				}
				if f.GetPull() != nil {
					pulls++
					size := 0
					for _, r := range reply {
						size += proto.Size(r)
					}
					if size > 2*outboxBytes {
						t.Fatalf("pull %d answered with %d frames of %d bytes, over the outbox's stall bound %d",
							pulls, len(reply), size, 2*outboxBytes)
					}
				}
				queue[1-from] = append(queue[1-from], reply...)
			}
		}
	}
	if got := la.VersionVector()["rep_b"]; got != n {
		t.Fatalf("puller holds rep_b up to %d after %d pulls, want %d", got, pulls, n)
	}
}
