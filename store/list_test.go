package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestList_MatchesNaiveFilter compares List, with every combination of
// to_agent, another filter, order, limit and anchors, against a plain
// filter over all events in local seq order.
func TestList_MatchesNaiveFilter(t *testing.T) {
	s, _ := openTestStore(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 11))
	for i := 0; i < 120; i++ {
		to := []string{"x", "y", "*", ""}[rng.IntN(4)]
		mustAppend(t, s, AppendInput{Type: []string{"note", "task.request"}[rng.IntN(2)], Stream: "s", Room: "r",
			FromAgent: "a", ToAgent: to, Body: fmt.Sprint(i)})
	}
	all := allEventsBySeq(t, s)
	naive := func(f Filter) []string {
		var since, before int64 = 0, 1 << 62
		for _, e := range all {
			if e.ID == f.SinceEventID {
				since = e.Seq
			}
			if e.ID == f.BeforeEventID {
				before = e.Seq
			}
		}
		var out []string
		for _, e := range all {
			if e.Seq <= since || e.Seq >= before || (f.Type != "" && e.Type != f.Type) {
				continue
			}
			if f.ToAgent != "" && e.ToAgent != f.ToAgent && e.ToAgent != "*" {
				continue
			}
			out = append(out, e.ID)
		}
		if f.Order == "desc" {
			slices.Reverse(out)
		}
		if len(out) > f.Limit {
			out = out[:f.Limit]
		}
		return out
	}
	for _, to := range []string{"", "x", "*"} {
		for _, typ := range []string{"", "note"} {
			for _, order := range []string{"asc", "desc"} {
				for _, limit := range []int{1, 7, 500} {
					for _, anchors := range [][2]string{{"", ""}, {all[30].ID, ""}, {"", all[90].ID}, {all[20].ID, all[100].ID}} {
						f := Filter{ToAgent: to, Type: typ, Order: order, Limit: limit, SinceEventID: anchors[0], BeforeEventID: anchors[1]}
						res, err := s.List(ctx, f)
						if err != nil {
							t.Fatal(err)
						}
						if got, want := ids(res.Events), naive(f); !slices.Equal(got, want) {
							t.Fatalf("%+v:\n got %v\nwant %v", f, got, want)
						}
					}
				}
			}
		}
	}
}
