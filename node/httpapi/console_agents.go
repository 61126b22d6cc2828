package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/store"
)

const (
	// rosterOwedLimit bounds the owed count of each roster row: past it
	// the page shows "100+".
	rosterOwedLimit = 100
	// agentPageDefault is how many owed and awaiting asks an agent's page
	// lists unless it asks for more (limit=, at most the store's 500).
	agentPageDefault = 50
	// rosterEvents is how many of the newest events the roster page folds
	// unless asked for the whole log.
	rosterEvents = 50000
	// agentRecentLimit is how many of an agent's latest events its page
	// shows.
	agentRecentLimit = 20
)

// awaitingLog is the awaiting view (store.Awaiting): the asks an agent
// wrote that their addressees still owe. A log that has it gets awaiting
// counts on the roster and an awaiting list on each agent's page; a log
// without it (a stand-in) gets owed counts only, and awaiting reported
// as unavailable (null), never a made-up number.
type awaitingLog interface {
	Awaiting(ctx context.Context, q store.AwaitingQuery) ([]store.Awaited, error)
}

// awaitingEvents is the view's asks of agent as events, at most limit.
func awaitingEvents(ctx context.Context, av awaitingLog, scope *store.ReadScope, agent string, limit int) ([]store.Event, error) {
	asks, err := av.Awaiting(ctx, store.AwaitingQuery{Agent: agent, Limit: limit, Scope: scope})
	if err != nil {
		return nil, err
	}
	evs := make([]store.Event, len(asks))
	for i, a := range asks {
		evs[i] = a.Event
	}
	return evs, nil
}

// agentRow is one agent of the roster page.
type agentRow struct {
	Agent    string   `json:"agent"`
	Replicas []string `json:"replicas"`
	Events   int64    `json:"events"`
	LastSeen string   `json:"last_seen,omitempty"`
	LastHLC  string   `json:"last_hlc"`
	// Shared is the same-name-two-devices flag of `lsnode agents`
	// (store.AgentInfo.Shared).
	Shared       bool `json:"shared"`
	Owed         int  `json:"owed"`
	OwedMore     bool `json:"owed_more"`
	Awaiting     *int `json:"awaiting"` // nil: the store has no awaiting view
	AwaitingMore bool `json:"awaiting_more"`
}

// handleAgents answers GET /ui/api/agents: the roster `lsnode agents`
// shows, each agent with its owed count (and awaiting count, when the
// store has the view). The roster is that of the newest rosterEvents
// events (store.RecentAgents), so the page costs the same however long
// the log; all=1 folds the whole log (store.Agents), as `lsnode agents`
// does. An agent token sees the agents of its mailboxes only: every
// event a roster row counts was written by that agent, so it is in the
// token's scope.
func (c *console) handleAgents(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	ctx := r.Context()
	scope := auth.IdentityFrom(ctx).ReadScope()
	var (
		roster []store.AgentInfo
		read   int
		err    error
	)
	whole := r.URL.Query().Get("all") == "1"
	if whole {
		roster, err = c.store.Agents(ctx, defaultAgentsWindow)
	} else {
		roster, read, err = c.store.RecentAgents(ctx, defaultAgentsWindow, rosterEvents)
	}
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	rows := []agentRow{}
	for _, a := range roster {
		if !scope.HasMailbox(a.Agent) {
			continue
		}
		row := rosterRow(a)
		if row.Owed, row.OwedMore, err = c.owedCount(ctx, scope, a.Agent); err != nil {
			c.writeStoreError(w, r, err)
			return
		}
		if row.Awaiting, row.AwaitingMore, err = c.awaitingCount(ctx, scope, a.Agent); err != nil {
			c.writeStoreError(w, r, err)
			return
		}
		rows = append(rows, row)
	}
	_, hasAwaiting := c.store.(awaitingLog)
	names := map[string]string{} // an agent token sees replica ids only, as on a thread
	if scope == nil {
		names = c.replicaNames(ctx)
	}
	writeConsoleJSON(w, http.StatusOK, map[string]any{
		"agents": rows, "window_s": defaultAgentsWindow.Seconds(), "awaiting_available": hasAwaiting, "replicas": names,
		"whole_log": whole || read < rosterEvents, "events_read": read, "roster_events": rosterEvents,
	})
}

func rosterRow(a store.AgentInfo) agentRow {
	row := agentRow{Agent: a.Agent, Replicas: nonNil(a.Replicas), Events: a.Events, LastHLC: a.LastHLC, Shared: a.Shared}
	if !a.LastSeen.IsZero() {
		row.LastSeen = a.LastSeen.UTC().Format(time.RFC3339Nano)
	}
	return row
}

func (c *console) owedCount(ctx context.Context, scope *store.ReadScope, agent string) (int, bool, error) {
	evs, err := c.store.OwedIn(ctx, scope, agent, "", rosterOwedLimit+1)
	if err != nil {
		return 0, false, err
	}
	return min(len(evs), rosterOwedLimit), len(evs) > rosterOwedLimit, nil
}

func (c *console) awaitingCount(ctx context.Context, scope *store.ReadScope, agent string) (*int, bool, error) {
	av, ok := c.store.(awaitingLog)
	if !ok {
		return nil, false, nil
	}
	evs, err := awaitingEvents(ctx, av, scope, agent, rosterOwedLimit+1)
	if err != nil {
		return nil, false, err
	}
	n := min(len(evs), rosterOwedLimit)
	return &n, len(evs) > rosterOwedLimit, nil
}

// agentPage is GET /ui/api/agent's answer.
type agentPage struct {
	Agent    string        `json:"agent"`
	Owed     []store.Event `json:"owed"`
	OwedMore bool          `json:"owed_more"`
	// Awaiting is nil when the store has no awaiting view.
	Awaiting     []store.Event `json:"awaiting"`
	AwaitingMore bool          `json:"awaiting_more"`
	Recent       []store.Event `json:"recent"`
}

// handleAgent answers GET /ui/api/agent?name=AGENT&limit=N: the first N
// (default 50, at most 500) asks the agent
// owes a reply to (mempalace_event_owed's list), the asks it awaits
// replies to when the store has that view, and its latest events, each
// within the caller's read scope.
func (c *console) handleAgent(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	ctx := r.Context()
	agent, err := rules.Routing(r.URL.Query().Get("name"), "name", true)
	if err != nil {
		writeConsoleError(w, http.StatusBadRequest, err.Error())
		return
	}
	q := parseQuery(r.URL.RawQuery)
	n, err := q.intParam("limit", agentPageDefault)
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	limit, err := rules.Limit(n)
	if err != nil {
		writeConsoleError(w, http.StatusBadRequest, err.Error())
		return
	}
	scope := auth.IdentityFrom(ctx).ReadScope()
	out := agentPage{Agent: agent}
	owed, err := c.store.OwedIn(ctx, scope, agent, "", limit+1)
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	out.Owed, out.OwedMore = firstOf(owed, limit)
	if av, ok := c.store.(awaitingLog); ok {
		awaiting, err := awaitingEvents(ctx, av, scope, agent, limit+1)
		if err != nil {
			c.writeStoreError(w, r, err)
			return
		}
		out.Awaiting, out.AwaitingMore = firstOf(awaiting, limit)
	}
	recent, err := c.store.List(ctx, store.Filter{Writer: agent, Order: "desc", Limit: agentRecentLimit, Preview: true, Scope: scope})
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	out.Recent = nonNilEvents(recent.Events)
	writeConsoleJSON(w, http.StatusOK, out)
}

// firstOf cuts a list read with one event more than limit to limit, and
// says whether there were more.
func firstOf(evs []store.Event, limit int) ([]store.Event, bool) {
	return nonNilEvents(evs[:min(len(evs), limit)]), len(evs) > limit
}

func nonNilEvents(evs []store.Event) []store.Event {
	if evs == nil {
		return []store.Event{}
	}
	return evs
}
