package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestWait_NoLostWakeups runs waiters that follow their filters with the
// portable cursor while a writer appends and applies a peer's ops
// concurrently. Each waiter waits far longer than the whole test takes, so
// a wake-up lost between its read and its sleep shows as a timed-out wait
// while matching events remain unread; each must end having read every
// event its filter matches exactly once.
func TestWait_NoLostWakeups(t *testing.T) {
	ctx := context.Background()
	s, _ := openReplica(t, repA)
	peer, _ := openReplica(t, repB)
	filters := []Filter{{ToAgent: "a1"}, {Stream: "s2"}, {Writer: "a0", Room: "r1"}, {}, {ToAgent: "*"}}
	const writes = 200
	rng := rand.New(rand.NewPCG(3, 3))
	inputs := make([]AppendInput, writes)
	for i := range inputs {
		inputs[i] = randomAppend(t, rng, s)
		inputs[i].ArtifactIDs, inputs[i].IdempotencyKey = nil, ""
		inputs[i].Body = fmt.Sprint(i)
	}
	// Each filter's reader ends at a marker event it matches, written last.
	marker := AppendInput{Type: "note", Stream: "s2", Room: "r1", FromAgent: "a0", ToAgent: "*", Body: "end"}

	seen := make([][]string, len(filters))
	errs := make(chan error, len(filters))
	var wg sync.WaitGroup
	for i, f := range filters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.Order = "asc"
			f.Cursor = EncodeCursor(map[string]int64{})
			for {
				res, timedOut, err := s.Wait(ctx, f, time.Minute)
				if err != nil || timedOut {
					errs <- fmt.Errorf("filter %+v after %d events: timed out %v, %v", f, len(seen[i]), timedOut, err)
					return
				}
				seen[i] = append(seen[i], ids(res.Events)...)
				f.Cursor = res.Cursor
				if slices.ContainsFunc(res.Events, func(e Event) bool { return e.Body == "end" }) {
					return
				}
			}
		}()
	}
	for i, in := range inputs {
		if i%3 == 0 {
			if _, err := peer.Append(ctx, in); err != nil {
				t.Fatal(err)
			}
			exchange(t, peer, s)
			continue
		}
		if _, err := s.Append(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	mustAppend(t, s, marker)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	all := allEventsBySeq(t, s)
	for i, f := range filters {
		c := mustCompile(t, f)
		var want []string
		for j := range all {
			if e := &all[j]; (c.to == "" || e.ToAgent == c.to || e.ToAgent == "*") && c.eq.matches(e) {
				want = append(want, e.ID)
			}
		}
		if d := duplicates(seen[i]); len(d) > 0 {
			t.Fatalf("filter %+v: read %v twice", f, d)
		}
		got := slices.Clone(seen[i])
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("filter %+v: read %d events, %d match", f, len(got), len(want))
		}
	}
}
