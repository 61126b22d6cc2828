package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// TaskCreate appends a task.request (mempalace_task_create): stream
// project/<slug(project)>, room delegation, status open, correlation id
// task_<slug(goal)>_<8 hex>, and a body with the goal, the definition of
// done and the delivery instructions. It returns the handoff line the
// Python hub returns.
func (s *Store) TaskCreate(ctx context.Context, in TaskInput) (Written, string, error) {
	var project, from, to, branch string
	for _, f := range []struct {
		dst   *string
		v     string
		label string
	}{
		{&project, in.Project, "project"}, {&from, in.FromAgent, "requesting agent"},
		{&to, in.ToAgent, "destination agent"}, {&branch, in.Branch, "branch"},
	} {
		v, err := rules.TaskText(f.v, f.label)
		if err != nil {
			return Written{}, "", wrapRule(err)
		}
		*f.dst = v
	}
	base, err := rules.TaskBaseCommit(in.BaseCommit)
	if err != nil {
		return Written{}, "", wrapRule(err)
	}
	// goal and done are checked but kept verbatim in the body.
	if _, err := rules.TaskText(in.Goal, "goal"); err != nil {
		return Written{}, "", wrapRule(err)
	}
	if _, err := rules.TaskText(in.Done, "definition of done"); err != nil {
		return Written{}, "", wrapRule(err)
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Written{}, "", fmt.Errorf("mint correlation id: %w", err)
	}
	corr := "task_" + slugOr(in.Goal, "work") + "_" + hex.EncodeToString(b[:])
	body := "Goal:\n" + in.Goal + "\n\nDefinition of done:\n" + in.Done + "\n\nDelivery:\n" +
		"Close the loop through MemPalace: claim the request, then submit a patch " +
		"with mempalace_patch_submit or reply with blocked/failed evidence."
	w, err := s.Append(ctx, AppendInput{
		Type: "task.request", Stream: "project/" + slugOr(project, "project"), Room: "delegation",
		FromAgent: from, ToAgent: to, CorrelationID: corr, Branch: branch,
		BaseCommit: base, Status: "open", Body: body, IdempotencyKey: in.IdempotencyKey,
	})
	if err != nil {
		return Written{}, "", err
	}
	handoff := "Open MemPalace task " + w.Event.CorrelationID + " as " + to + ". " +
		"Claim it, follow its exact definition of done, and deliver through the logstream."
	return w, handoff, nil
}

// slugOr is the hub's task_slug: the slug, or fallback when nothing is left.
func slugOr(s, fallback string) string {
	if slug := rules.Slug(s); slug != "" {
		return slug
	}
	return fallback
}
