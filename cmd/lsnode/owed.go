package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// runOwed prints the events an agent still owes a reply to
// (mempalace_event_owed): addressed to it, not written by it, and not
// yet closed by a terminal reply of its own; each with the thread's
// status and its claim.
func runOwed(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("owed", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	agent := fs.String("agent", "", "the agent whose owed events to list (required)")
	stream := fs.String("stream", "", "only events of this stream")
	limit := fs.Int("limit", 0, "most events to return (node default 50, at most 500)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if *agent == "" {
		return usageErrorf("--agent is required")
	}
	call := map[string]any{"agent": *agent}
	if *stream != "" {
		call["stream"] = *stream
	}
	if *limit != 0 {
		call["limit"] = *limit
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	raw, err := c.callTool(ctx, "mempalace_event_owed", call)
	if err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	return printOwed(stdout, raw)
}

// printOwed writes an owed answer as an event table with each event's
// claim after its status.
func printOwed(w io.Writer, raw json.RawMessage) error {
	var page struct {
		Events []struct {
			wireEvent
			wireClaim
		} `json:"events"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	at := slices.Index(eventHeader, "STATUS") + 1
	var t table
	t.row(slices.Insert(slices.Clone(eventHeader), at, claimColumn)...)
	for _, e := range page.Events {
		t.row(slices.Insert(eventCells(e.wireEvent), at, e.cell())...)
	}
	return t.write(w)
}
