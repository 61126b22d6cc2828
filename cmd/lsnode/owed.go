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
	return owedView.run(ctx, args, stdout, stderr)
}

var owedView = agentView{
	name: "owed", tool: "mempalace_event_owed",
	agentUsage: "the agent whose owed events to list", limitUsage: "most events to return",
	args:  func(ta *toolArgs) { ta.str("stream", "stream", "only events of this stream") },
	print: printOwed,
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
