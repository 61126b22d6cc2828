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
	s := openCached(t, t.TempDir(), wall, 60*tailEntryOverhead, 0) // a short window, a by-id cache of about 15 events
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
	writeOwedRows(t, s) // the table itself is compared
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

// TestEventCache_Budget checks that the event cache stays within its
// byte budget with events of very different sizes, and keeps what fits.
func TestEventCache_Budget(t *testing.T) {
	const budget = 64 << 10
	c := newEventCache(budget)
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range 2000 {
		e := Event{ID: fmt.Sprintf("evt_%d", i), Body: string(make([]byte, rng.IntN(8000)))}
		c.put(e)
		if c.used > budget {
			t.Fatalf("after %d puts: %d bytes held, budget %d", i+1, c.used, budget)
		}
		if got, ok := c.get(e.ID); tailSize(&e) <= budget && (!ok || got.ID != e.ID) {
			t.Fatalf("event %d not held right after put", i)
		}
	}
	var sum int64
	for _, e := range c.m {
		sum += tailSize(&e)
	}
	if sum != c.used || len(c.m) == 0 {
		t.Fatalf("accounted %d bytes, held %d in %d events", c.used, sum, len(c.m))
	}
	c.put(Event{ID: "huge", Body: string(make([]byte, budget))})
	if _, ok := c.get("huge"); ok || c.used > budget {
		t.Fatalf("an event larger than the budget was cached (%d bytes held)", c.used)
	}
}
