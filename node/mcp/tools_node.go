package mcp

import (
	"context"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/store"
)

func (t *toolSet) taskCreate(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	in := store.TaskInput{ // read in the hub's validation order
		Project:    c.taskText("project", "project"),
		FromAgent:  c.taskText("from_agent", "requesting agent"),
		ToAgent:    c.taskText("to_agent", "destination agent"),
		Branch:     c.taskText("branch", "branch"),
		BaseCommit: c.taskBaseCommit("base_commit"),
		Goal:       c.verbatimTaskText("goal", "goal"),
		Done:       c.verbatimTaskText("done", "definition of done"),
	}
	in.IdempotencyKey = c.routing("idempotency_key", false)
	if c.err != nil {
		return nil, c.err
	}
	if err := t.checkWriter(ctx, "from_agent", in.FromAgent); err != nil {
		return nil, err
	}
	w, handoff, err := t.log.TaskCreate(ctx, in)
	if err != nil {
		return nil, err
	}
	return written(pyjson.Object{{Key: "task", Value: w.Event}, {Key: "handoff", Value: handoff}}, w), nil
}

// meshPeers answers with the node's roster, the GET /sync/peers payload.
func (t *toolSet) meshPeers(ctx context.Context, _ *callArgs) (any, error) {
	if err := t.checkAdmin(ctx, "mempalace_mesh_peers", "the roster is replication state, as GET /sync/peers"); err != nil {
		return nil, err
	}
	if t.roster == nil {
		return nil, toolFailure("the mesh roster is not available on this node")
	}
	return t.roster(ctx)
}
