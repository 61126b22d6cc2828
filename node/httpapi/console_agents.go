package httpapi

import (
	"context"
	"net/http"
	"path"
	"time"

	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/store/rules"
)

const (
	// rosterOwedLimit bounds the owed count of each roster row: past it
	// the page shows "100+".
	rosterOwedLimit = 100
	// agentPageLimit bounds the owed and awaiting lists of one agent's
	// page (the store's page limit).
	agentPageLimit = 500
	// agentRecentLimit is how many of an agent's latest events its page
	// shows.
	agentRecentLimit = 20
)

// awaitingLog is the hook of the awaiting view: the asks an agent wrote
// that their addressees still owe. A store that implements it (as
// store.Awaiting, with OwedIn's arguments) gets awaiting counts on the
// roster and an awaiting list on each agent's page; without it the
// console shows owed counts only and reports awaiting as unavailable
// (null), never a made-up number.
type awaitingLog interface {
	Awaiting(ctx context.Context, scope *store.ReadScope, agent, stream string, limit int) ([]store.Event, error)
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
// shows (store.Agents), each agent with its owed count (and awaiting
// count, when the store has the view). An agent token sees the agents
// of its mailboxes only: every event a roster row counts was written by
// that agent, so it is in the token's scope.
func (c *console) handleAgents(w http.ResponseWriter, r *http.Request, _ *consoleSession) {
	ctx := r.Context()
	scope := auth.IdentityFrom(ctx).ReadScope()
	roster, err := c.store.Agents(ctx, defaultAgentsWindow)
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	rows := []agentRow{}
	for _, a := range roster {
		if !scopeHasAgent(scope, a.Agent) {
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
	})
}

// scopeHasAgent reports whether scope reads agent's whole mailbox.
func scopeHasAgent(scope *store.ReadScope, agent string) bool {
	if scope == nil {
		return true
	}
	for _, p := range scope.Agents {
		if ok, err := path.Match(p, agent); err == nil && ok {
			return true
		}
	}
	return false
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
	evs, err := av.Awaiting(ctx, scope, agent, "", rosterOwedLimit+1)
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

// handleAgent answers GET /ui/api/agent?name=AGENT: the asks the agent
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
	scope := auth.IdentityFrom(ctx).ReadScope()
	out := agentPage{Agent: agent}
	if out.Owed, err = c.store.OwedIn(ctx, scope, agent, "", agentPageLimit); err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	out.OwedMore = len(out.Owed) == agentPageLimit
	if av, ok := c.store.(awaitingLog); ok {
		if out.Awaiting, err = av.Awaiting(ctx, scope, agent, "", agentPageLimit); err != nil {
			c.writeStoreError(w, r, err)
			return
		}
		out.Awaiting = nonNilEvents(out.Awaiting)
		out.AwaitingMore = len(out.Awaiting) == agentPageLimit
	}
	recent, err := c.store.List(ctx, store.Filter{Writer: agent, Order: "desc", Limit: agentRecentLimit, Preview: true, Scope: scope})
	if err != nil {
		c.writeStoreError(w, r, err)
		return
	}
	out.Recent = nonNilEvents(recent.Events)
	writeConsoleJSON(w, http.StatusOK, out)
}

func nonNilEvents(evs []store.Event) []store.Event {
	if evs == nil {
		return []store.Event{}
	}
	return evs
}
