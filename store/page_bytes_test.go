package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/hlc"
)

// TestPageBytes: pages of big events are cut at the size bound, on the
// cache path and the SQL path alike, and a reader that resumes by cursor
// or by event id still sees every event once, in order; Wait and Owed
// pages are bounded too.
func TestPageBytes(t *testing.T) {
	const body = 100 << 10
	const budget = 250 << 10 // two events fit, three do not
	for _, cache := range []int64{0, -1} {
		t.Run(fmt.Sprintf("tailcache=%d", cache), func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, Config{Dir: t.TempDir(), Wall: hlc.NewManualClock(testClockStart),
				MaxPageBytes: budget, TailCacheBytes: cache})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			var ids []string
			for i := range 7 {
				e := mustAppend(t, s, AppendInput{Type: "task.request", Stream: "s", Room: "r", FromAgent: "a", ToAgent: "b",
					Body: fmt.Sprintf("%d%s", i, strings.Repeat("x", body))})
				ids = append(ids, e.ID)
			}
			mustAppend(t, s, AppendInput{Type: "note", Stream: "s", Room: "r", FromAgent: "a", ToAgent: "b", Body: "small"})

			var byCursor, byID []string
			for f := (Filter{ToAgent: "b", Order: "asc", Limit: 50}); ; {
				res, err := s.List(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Events) == 0 {
					break
				}
				if res.Cut != (len(byCursor)+len(res.Events) < 7) {
					t.Errorf("page after %d events: Cut = %v with %d events", len(byCursor), res.Cut, len(res.Events))
				}
				if len(res.Events) > 2 {
					t.Fatalf("a page of %d events of %d KiB each, want at most 2 under a %d KiB bound", len(res.Events), body>>10, budget>>10)
				}
				for _, e := range res.Events {
					byCursor = append(byCursor, e.ID)
				}
				f.Cursor = res.Cursor
			}
			for f := (Filter{ToAgent: "b", Order: "asc", Limit: 50}); ; {
				res, err := s.List(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Events) == 0 {
					break
				}
				for _, e := range res.Events {
					byID = append(byID, e.ID)
				}
				f.SinceEventID = res.Events[len(res.Events)-1].ID
			}
			if len(byCursor) != 8 || strings.Join(byCursor, ",") != strings.Join(byID, ",") || strings.Join(byCursor[:7], ",") != strings.Join(ids, ",") {
				t.Errorf("read by cursor %v,\nby since_event_id %v,\nwant the 7 big events %v then the small one", byCursor, byID, ids)
			}

			res, timedOut, err := s.Wait(ctx, Filter{ToAgent: "b", Limit: 50}, 0)
			if err != nil || timedOut || len(res.Events) != 2 {
				t.Errorf("Wait: %d events, timed out %v, err %v; want the first 2", len(res.Events), timedOut, err)
			}
			owed, err := s.Owed(ctx, "b", "", 50)
			if err != nil || len(owed) != 2 || owed[0].ID != ids[0] {
				t.Errorf("Owed: %d events, err %v; want the 2 oldest", len(owed), err)
			}
			// Preview pages are measured after the bodies are cut: all fit.
			res, err = s.List(ctx, Filter{ToAgent: "b", Order: "asc", Limit: 50, Preview: true})
			if err != nil || len(res.Events) != 8 {
				t.Errorf("preview List: %d events, err %v; want all 8", len(res.Events), err)
			}
		})
	}
}

func TestPageFit(t *testing.T) {
	ev := func(n int) Event { return Event{Body: strings.Repeat("x", n)} }
	evs := []Event{ev(1000), ev(1000), ev(1000)}
	for _, tt := range []struct{ budget, want int }{
		{0, 3}, {-1, 3}, {1, 1}, {1512, 1}, {3024, 2}, {3025, 2}, {4536, 3},
	} {
		if got := pageFit(evs, tt.budget); got != tt.want {
			t.Errorf("pageFit(3 x 1512 B, %d) = %d, want %d", tt.budget, got, tt.want)
		}
	}
}
