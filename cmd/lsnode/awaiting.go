package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
)

// runAwaiting prints the asks an agent wrote that their addressees still
// owe (mempalace_event_awaiting), oldest first, with their age, claim
// and the addressee's last stamp; --older-than keeps the overdue ones.
func runAwaiting(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return awaitingView.run(ctx, args, stdout, stderr)
}

var awaitingView = agentView{
	name: "awaiting", tool: "mempalace_event_awaiting",
	agentUsage: "the asker whose awaited asks to list", limitUsage: "most asks to return",
	args: func(ta *toolArgs) {
		ta.str("stream", "stream", "only asks of this stream")
		ta.str("older-than", "older_than", "only asks at least this old, e.g. 30m or 2h")
	},
	print: printAsks,
}

// wireAsk is the part of an awaiting answer's ask the table shows.
type wireAsk struct {
	wireEvent
	AgeS      int64   `json:"age_s"`
	Addressee string  `json:"addressee"`
	LastHeard *string `json:"last_heard"`
	wireClaim
}

// printAsks writes an awaiting answer as a table.
func printAsks(w io.Writer, raw json.RawMessage) error {
	var page struct {
		Asks []wireAsk `json:"asks"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	var t table
	t.row("AGE", "TO", "STATUS", claimColumn, "LAST HEARD", "STREAM/ROOM", "ID", "BODY")
	for _, a := range page.Asks {
		t.row((time.Duration(a.AgeS) * time.Second).String(), a.Addressee, orDash(a.Status), a.cell(), orDash(a.LastHeard),
			a.Stream+"/"+a.Room, a.ID, oneLine(a.Body, bodyWidth))
	}
	if err := t.write(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s asks awaiting a reply\n", strconv.Itoa(len(page.Asks)))
	return err
}
