package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// AwaitingQuery selects the asks an agent is waiting on.
type AwaitingQuery struct {
	// Agent is the asker (required).
	Agent string
	// Stream, when set, keeps the asks of that stream.
	Stream string
	// OlderThan, when positive, keeps the asks at least that old (by
	// their HLC wall time): the overdue ones.
	OlderThan time.Duration
	// Limit bounds the page as a list's (0: 50; at most 500).
	Limit int
	// Scope is what the caller may read; nil: everything.
	Scope *ReadScope
}

// Awaited is an ask an agent wrote that its addressee still owes, seen
// from the asker's side: the same rule as the owed set (docs/architecture.md#owed-ness).
type Awaited struct {
	Ask
	// Age is how long ago the ask was written, by its HLC wall time and
	// this replica's clock (0 for a stamp ahead of the clock).
	Age time.Duration
	// LastHeard is the newest HLC stamp among the addressee's events
	// anywhere in the mesh, LastHeardAt its wall time; "" and zero when
	// the addressee never wrote. It is a stamp, not an event: it is not
	// limited by the read scope.
	LastHeard   string
	LastHeardAt time.Time
}

// Awaiting returns the asks q.Agent wrote that their addressees still owe,
// oldest first in HLC order, each with its age, claim, status and its
// addressee's last stamp. The set depends only on the ops held, so every
// converged replica gives the same one (ages aside, which are measured
// against the local clock). An agent that asked nothing gets an empty
// answer.
func (s *Store) Awaiting(ctx context.Context, q AwaitingQuery) ([]Awaited, error) {
	agent, err := rules.Routing(q.Agent, "agent", true)
	if err != nil {
		return nil, wrapRule(err)
	}
	stream, err := rules.Routing(q.Stream, "stream", false)
	if err != nil {
		return nil, wrapRule(err)
	}
	if q.OlderThan < 0 {
		return nil, invalidf("older_than must not be negative")
	}
	now := s.wall.Now()
	sel := owedSelect{from: agent, stream: stream, scope: q.Scope}
	if q.OlderThan > 0 {
		// Stamps begin with their wall time in 13 digits: every stamp of a
		// millisecond up to the cutoff sorts below the next millisecond.
		sel.before = fmt.Sprintf("%013d", now.Add(-q.OlderThan).UnixMilli()+1)
	}
	evs, err := s.owedPage(ctx, sel, q.Limit)
	if err != nil {
		return nil, err
	}
	asks, err := s.asksOf(ctx, evs)
	if err != nil {
		return nil, err
	}
	var addressees []string
	for _, e := range evs {
		if !slices.Contains(addressees, e.ToAgent) {
			addressees = append(addressees, e.ToAgent)
		}
	}
	heard, err := lastHeard(ctx, s.reads.pool(), addressees)
	if err != nil {
		return nil, err
	}
	out := make([]Awaited, len(asks))
	for i, a := range asks {
		out[i] = Awaited{Ask: a, Age: max(now.Sub(stampTime(a.Event.HLC)), 0), LastHeard: heard[a.Event.ToAgent]}
		if out[i].LastHeard != "" {
			out[i].LastHeardAt = stampTime(out[i].LastHeard)
		}
	}
	return out, nil
}

// stampTime is the wall time of an HLC stamp (UTC, millisecond
// precision; the zero time for an unparsable one).
func stampTime(stamp string) time.Time {
	ts, err := hlc.Parse(stamp)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(ts.WallMS).UTC()
}
