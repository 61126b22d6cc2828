package store

import (
	"context"
	"testing"
	"time"
)

// BenchmarkListScoped runs a page of 50 on the big log as an agent token
// reads it: unscoped with to_agent=X (the mailbox as a filter, the
// baseline), and scoped to X's mailbox (events to or from X, and
// broadcasts) given as an exact name and as a pattern, each answered by
// the read cache (cache=on) and by SQL (cache=off).
func BenchmarkListScoped(b *testing.B) {
	type query struct {
		name string
		f    func(i int) Filter
	}
	queries := []query{
		{"unscoped-to_agent", func(i int) Filter { return Filter{ToAgent: benchAgent(i), Limit: 50} }},
		{"scope=exact", func(i int) Filter {
			return Filter{Scope: &ReadScope{Agents: []string{benchAgent(i)}, Broadcasts: true}, Limit: 50}
		}},
		{"scope=pattern", func(i int) Filter {
			return Filter{Scope: &ReadScope{Agents: []string{benchAgent(i) + "*"}, Broadcasts: true}, Limit: 50}
		}},
	}
	for _, cache := range []struct {
		name   string
		budget int64
	}{{"cache=on", 0}, {"cache=off", -1}} {
		for _, q := range queries {
			b.Run(cache.name+"/"+q.name, func(b *testing.B) {
				s := bigLog(b, cache.budget)
				ctx := context.Background()
				b.ResetTimer()
				start := time.Now()
				for i := 0; i < b.N; i++ {
					res, err := s.List(ctx, q.f(i))
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Events) != 50 {
						b.Fatalf("%d events", len(res.Events))
					}
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
			})
		}
	}
}

// BenchmarkOwedScoped runs an agent's owed and awaiting pages (limit 51,
// as the console's roster row asks) on the big log: unscoped, and as the
// agent's own token reads them (its mailbox and broadcasts), which takes
// the unscoped plan because the pages hold only its own mailbox.
func BenchmarkOwedScoped(b *testing.B) {
	own := func(i int) *ReadScope { return &ReadScope{Agents: []string{benchAgent(i)}, Broadcasts: true} }
	none := func(int) *ReadScope { return nil }
	for _, sc := range []struct {
		name  string
		scope func(int) *ReadScope
	}{{"unscoped", none}, {"scope=own", own}} {
		b.Run("owed/"+sc.name, func(b *testing.B) {
			s := bigLog(b, 0)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.OwedIn(ctx, sc.scope(i), benchAgent(i), "", 51); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("awaiting/"+sc.name, func(b *testing.B) {
			s := bigLog(b, 0)
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Awaiting(ctx, AwaitingQuery{Agent: benchAgent(i), Limit: 51, Scope: sc.scope(i)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
