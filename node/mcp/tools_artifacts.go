package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// defaultPatchRoom is patch_submit's room when the argument is absent.
const defaultPatchRoom = "patches"

func (t *toolSet) artifactPut(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	in := store.ArtifactInput{ // read in the hub's validation order
		Kind:           c.artifactKind("kind"),
		CreatedBy:      c.routing("created_by", true),
		Content:        c.content("content"),
		Metadata:       c.metadata("metadata"),
		IdempotencyKey: c.routing("idempotency_key", false),
	}
	if c.err != nil {
		return nil, c.err
	}
	if err := t.checkWriter(ctx, "created_by", in.CreatedBy); err != nil {
		return nil, err
	}
	w, err := t.log.PutArtifact(ctx, in)
	if err != nil {
		return nil, err
	}
	return written(pyjson.Object{{Key: "artifact", Value: w.Artifact.PutRecord()}}, w), nil
}

func (t *toolSet) artifactGet(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	id := c.routing("artifact_id", true)
	if c.err != nil {
		return nil, c.err
	}
	visible, err := t.visible(ctx, id, true)
	if err != nil {
		return nil, err
	}
	art, err := t.log.GetArtifact(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !visible) {
		// The hub names the id as the caller sent it, before trimming.
		return nil, toolFailure(fmt.Sprintf("artifact %s not found", rules.Repr(a.get("artifact_id").(string))))
	}
	if err != nil {
		return nil, err
	}
	return pyjson.Object{{Key: "artifact", Value: art}}, nil
}

func (t *toolSet) patchSubmit(ctx context.Context, a *callArgs) (any, error) {
	c := newChecker(a)
	// The hub stores the artifact first (from_agent checked as its
	// created_by), then appends the event; the store does both in one
	// transaction, but the checks keep the hub's order.
	in := store.PatchInput{FromAgent: c.routingAs("from_agent", "created_by", true)}
	in.Content = c.content("content")
	in.Metadata = c.metadata("metadata")
	in.Stream = c.routing("stream", true)
	in.Room = defaultPatchRoom
	if a.has("room") { // an explicit null is not the default: it is refused
		in.Room = c.routing("room", true)
	}
	in.Topic = c.routing("topic", false)
	in.ToAgent = c.routing("to_agent", false)
	in.CorrelationID = c.routing("correlation_id", false)
	in.Branch = c.routing("branch", false)
	in.BaseCommit = c.routing("base_commit", false)
	in.Body = c.body("body")
	in.IdempotencyKey = c.routing("idempotency_key", false)
	if c.err != nil {
		return nil, c.err
	}
	if err := t.checkWriter(ctx, "from_agent", in.FromAgent); err != nil {
		return nil, err
	}
	w, err := t.log.PatchSubmit(ctx, in)
	if err != nil {
		return nil, err
	}
	return written(pyjson.Object{
		{Key: "artifact", Value: w.Artifact.PutRecord()},
		{Key: "event", Value: w.Event},
	}, w), nil
}
