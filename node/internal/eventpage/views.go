package eventpage

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// RenderAwaiting renders an awaiting answer: {"asks", "count"}, each ask
// the event dict (its status the thread's latest) followed by age_s,
// addressee, last_heard, claimed_by, claimed_from and claim_conflict.
func RenderAwaiting(asks []store.Awaited) (pyjson.Object, error) {
	out := make([]any, len(asks))
	for i, a := range asks {
		v := awaitedView{AgeS: int64(a.Age / time.Second), Addressee: a.Event.ToAgent, claimView: claimOf(a.Claim)}
		if a.LastHeard != "" {
			v.LastHeard = &a.LastHeard
		}
		raw, err := askWith(a.Ask, v)
		if err != nil {
			return nil, err
		}
		out[i] = raw
	}
	return pyjson.Object{{Key: "asks", Value: out}, {Key: "count", Value: len(out)}}, nil
}

// RenderOwed renders an owed answer as a page, {"events", "count"}, each
// event the event dict (its status the thread's latest) followed by
// claimed_by, claimed_from and claim_conflict, as an awaited ask has
// them.
func RenderOwed(asks []store.Ask) (pyjson.Object, error) {
	out := make([]any, len(asks))
	for i, a := range asks {
		raw, err := askWith(a, claimOf(a.Claim))
		if err != nil {
			return nil, err
		}
		out[i] = raw
	}
	return pyjson.Object{{Key: "events", Value: out}, {Key: "count", Value: len(out)}}, nil
}

// claimView is what both views add about an ask's claim: its agent and
// replica (null when unclaimed) and whether it is in conflict.
type claimView struct {
	ClaimedBy     *string `json:"claimed_by"`
	ClaimedFrom   *string `json:"claimed_from"`
	ClaimConflict bool    `json:"claim_conflict"`
}

func claimOf(c *store.Claim) claimView {
	if c == nil {
		return claimView{}
	}
	return claimView{ClaimedBy: &c.By, ClaimedFrom: &c.From, ClaimConflict: c.Conflict}
}

// awaitedView is what an awaiting answer adds to an ask's event dict.
type awaitedView struct {
	AgeS      int64   `json:"age_s"`
	Addressee string  `json:"addressee"`
	LastHeard *string `json:"last_heard"`
	claimView
}

// askWith is one ask: the event dict, as the event renders itself, its
// status the thread's latest, with the members of view (a struct) after
// its own.
func askWith(a store.Ask, view any) (json.RawMessage, error) {
	ev := a.Event
	ev.Status = a.Status()
	head, err := ev.MarshalJSON()
	if err != nil {
		return nil, err
	}
	tail, err := json.Marshal(view)
	if err != nil {
		return nil, err
	}
	if len(head) < 2 || len(tail) < 2 {
		return nil, fmt.Errorf("ask %s renders no object", a.Event.ID)
	}
	// Both are objects: the event's members, then the view's.
	return append(append(head[:len(head)-1:len(head)-1], ','), tail[1:]...), nil
}

// RenderSearch renders a search page as a list's: {"events", "count",
// "cursor"}, in the search's order.
func RenderSearch(res store.SearchResult) pyjson.Object {
	page := store.ListResult{Events: make([]store.Event, len(res.Hits)), Cursor: res.Cursor}
	for i := range res.Hits {
		page.Events[i] = res.Hits[i].Event
	}
	return Render(nil, page, true)
}

// The search orders both surfaces take.
const (
	// SearchRank puts the best matches first (the default).
	SearchRank = "rank"
	// SearchHLC orders the matches oldest first; its cursor resumes.
	SearchHLC = "hlc"
)

// SearchOrder reads a search order argument ("" or SearchRank, SearchHLC)
// as the store's order; v is repr'd in the refusal.
func SearchOrder(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", SearchRank:
		return store.SearchByRank, nil
	case SearchHLC:
		return store.SearchOldestFirst, nil
	}
	return "", fmt.Errorf("order=%s must be '%s' or '%s'", rules.Repr(v), SearchRank, SearchHLC)
}
