package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/store"
)

// The tools apply the caller's identity (node/auth) here, on the context
// every dispatch path hands them: writes check the name they write as,
// reads add the identity's read scope to the store query, and lookups by
// id answer "not found" for what the scope hides, exactly as for an id
// that does not exist, so a scoped caller learns nothing of it.

// errNoIdentity is a call that reached a tool without the identity of its
// request although agent tokens are configured: refused, never served
// with full access.
var errNoIdentity = errors.New("no caller identity on the request (agent tokens are configured)")

// caller returns the identity of ctx's request (nil: full access).
func (t *toolSet) caller(ctx context.Context) (*auth.Identity, error) {
	id := auth.IdentityFrom(ctx)
	if id == nil && t.requireIdentity {
		return nil, errNoIdentity
	}
	return id, nil
}

// checkWriter refuses a write as agent (the value of field) that the
// caller's token may not make.
func (t *toolSet) checkWriter(ctx context.Context, field, agent string) error {
	id, err := t.caller(ctx)
	if err != nil || id.MayWriteAs(agent) {
		return err
	}
	t.logger.Warn("write refused: the token may not write as this name", "field", field, "agent", agent, "token_name", id.Name())
	return toolFailure(fmt.Sprintf("%s %s is not a name %s may write as (it may write as: %s)",
		field, rules.Repr(agent), id.Label(), id.WriteAsList()))
}

// readScope is the caller's read scope (nil: everything).
func (t *toolSet) readScope(ctx context.Context) (*store.ReadScope, error) {
	id, err := t.caller(ctx)
	if err != nil {
		return nil, err
	}
	return id.ReadScope(), nil
}

// checkArtifactsVisible refuses to attach an artifact the caller may not
// read, with the text of an unknown one: attaching would publish it
// under the caller's own event.
func (t *toolSet) checkArtifactsVisible(ctx context.Context, ids []string) error {
	scope, err := t.readScope(ctx)
	if err != nil || scope == nil {
		return err
	}
	for _, id := range ids {
		ok, err := t.log.ArtifactVisible(ctx, scope, id)
		if err != nil {
			return err
		}
		if !ok {
			return toolFailure(fmt.Sprintf("artifact_ids references unknown artifact %s", rules.Repr(id)))
		}
	}
	return nil
}

// visible reports whether the caller may read the event (or artifact,
// when artifact is set) with id; false also for an id that does not exist
// under a scope.
func (t *toolSet) visible(ctx context.Context, id string, artifact bool) (bool, error) {
	scope, err := t.readScope(ctx)
	if err != nil || scope == nil {
		return err == nil, err
	}
	if artifact {
		return t.log.ArtifactVisible(ctx, scope, id)
	}
	return t.log.EventVisible(ctx, scope, id)
}

// checkAdmin refuses a tool that only an admin token may call.
func (t *toolSet) checkAdmin(ctx context.Context, tool, why string) error {
	id, err := t.caller(ctx)
	if err != nil || !id.Scoped() {
		return err
	}
	return toolFailure(fmt.Sprintf("%s needs an admin token: %s (%s is an agent token)", tool, why, id.Label()))
}
