package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/lsnode/lsnode/hlc"
)

// TestOwed_CachedEventsMatchSQL compares Owed pages, whose events come
// from the tail cache, the event cache or SQLite, with the same page read
// by one SQL join, on a log with a small tail window: the first call reads
// old events from SQLite, the second from the event cache.
func TestOwed_CachedEventsMatchSQL(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 5))
	wall := hlc.NewManualClock(testClockStart)
	s := openCached(t, t.TempDir(), wall, 20*tailEntryOverhead+200*1024, 0) // a short window, a 25-event by-id cache
	for i := range 300 {
		in := randomAppend(t, rng, s)
		in.IdempotencyKey = ""
		if in.Type == "task.reply" && in.Status == "applied" {
			in.CorrelationID = fmt.Sprintf("c%d", i%3)
		}
		if _, err := s.Append(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	fromCache := 0
	for round := range 2 {
		for _, agent := range []string{"a0", "a1", "a2", "a3"} {
			for _, limit := range []int{3, 50} {
				got, err := s.Owed(ctx, agent, "", limit)
				if err != nil {
					t.Fatal(err)
				}
				want, err := queryEvents(ctx, s.reads.pool(), `SELECT `+eventColumnsOf("e.")+` FROM lsnode_owed o
JOIN events e ON e.id = o.event_id WHERE o.agent = ? ORDER BY o.hlc, o.origin_replica, o.origin_seq LIMIT ?`, agent, limit)
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want = []Event{}
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d, owed by %s, limit %d:\n got %v\nwant %v\n%s", round, agent, limit, ids(got), ids(want), firstEventDiff(got, want))
				}
				for _, e := range got {
					if _, ok := s.byID.get(e.ID); ok {
						fromCache++
					}
				}
			}
		}
	}
	if fromCache == 0 {
		t.Fatal("no owed event was held by the event cache: the comparison tests only SQLite")
	}
}

func eventColumnsOf(alias string) string {
	out := ""
	for i, c := range splitColumns(eventColumns) {
		if i > 0 {
			out += ", "
		}
		out += alias + c
	}
	return out
}

func splitColumns(cols string) []string {
	var out []string
	cur := ""
	for _, r := range cols {
		switch r {
		case ',':
			out = append(out, cur)
			cur = ""
		case ' ', '\n':
		default:
			cur += string(r)
		}
	}
	return append(out, cur)
}
