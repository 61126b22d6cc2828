package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/lsnode/lsnode/store/rules"
)

// TaskCreate appends a task.request (mempalace_task_create): stream
// project/<slug(project)>, room delegation, status open, correlation id
// task_<slug(goal)>_<8 hex>, and a body with the goal, the definition of
// done and the delivery instructions. It returns the handoff line the
// Python hub returns.
func (s *Store) TaskCreate(ctx context.Context, in TaskInput) (Written, string, error) {
	fields := []struct{ v, name string }{
		{in.Project, "project"}, {in.FromAgent, "from_agent"}, {in.ToAgent, "to_agent"},
		{in.Goal, "goal"}, {in.Branch, "branch"}, {in.Done, "done"},
	}
	for _, f := range fields {
		if _, err := rules.Routing(f.v, f.name, true); err != nil && f.name != "goal" && f.name != "done" {
			return Written{}, "", wrapRule(err)
		}
	}
	if in.Goal == "" || in.Done == "" {
		return Written{}, "", invalidf("goal and done must be non-empty strings")
	}
	base, err := rules.TaskBaseCommit(in.BaseCommit)
	if err != nil {
		return Written{}, "", wrapRule(err)
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Written{}, "", fmt.Errorf("mint correlation id: %w", err)
	}
	corr := "task_" + rules.Slug(in.Goal) + "_" + hex.EncodeToString(b[:])
	body := fmt.Sprintf("Goal:\n%s\n\nDefinition of done:\n%s\n\nDelivery:\nWork on branch %s from base commit %s. Claim this task with status=claimed, deliver with mempalace_patch_submit using correlation_id %s, and close it with a terminal status (applied, blocked, failed or superseded).",
		in.Goal, in.Done, in.Branch, base, corr)
	w, err := s.Append(ctx, AppendInput{
		Type: "task.request", Stream: "project/" + rules.Slug(in.Project), Room: "delegation",
		FromAgent: in.FromAgent, ToAgent: in.ToAgent, CorrelationID: corr, Branch: in.Branch,
		BaseCommit: base, Status: "open", Body: body, IdempotencyKey: in.IdempotencyKey,
	})
	if err != nil {
		return Written{}, "", err
	}
	handoff := fmt.Sprintf("Open MemPalace task %s as %s. Claim it, do the work on branch %s, and deliver with mempalace_patch_submit (correlation_id %s).",
		w.Event.CorrelationID, in.ToAgent, in.Branch, w.Event.CorrelationID)
	return w, handoff, nil
}
