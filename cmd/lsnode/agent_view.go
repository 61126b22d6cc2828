package main

import (
	"context"
	"encoding/json"
	"io"
)

// agentView is a command that lists one agent's view through a tool
// (owed, awaiting): the client flags, --agent (required), --limit and
// the optional string arguments args declares, carried into the call
// only when given; the answer is printed by print, or as it came with
// --json.
type agentView struct {
	name, tool string
	agentUsage string
	limitUsage string
	args       func(*toolArgs)
	print      func(io.Writer, json.RawMessage) error
}

func (v agentView) run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(v.name, stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	agent := fs.String("agent", "", v.agentUsage+" (required)")
	ta := newToolArgs(fs.FlagSet)
	v.args(ta)
	limit := intFlag(fs.FlagSet, "limit", 0, v.limitUsage+" (node default 50, at most 500)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if *agent == "" {
		return usageErrorf("--agent is required")
	}
	call := ta.collect()
	call["agent"] = *agent
	if *limit != 0 {
		call["limit"] = *limit
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	raw, err := c.callTool(ctx, v.tool, call)
	if err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	return v.print(stdout, raw)
}
