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
	fs := newFlagSet("awaiting", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	agent := fs.String("agent", "", "the asker whose awaited asks to list (required)")
	stream := fs.String("stream", "", "only asks of this stream")
	olderThan := fs.String("older-than", "", "only asks at least this old, e.g. 30m or 2h")
	limit := fs.Int("limit", 0, "most asks to return (node default 50, at most 500)")
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
	if *olderThan != "" {
		call["older_than"] = *olderThan
	}
	if *limit != 0 {
		call["limit"] = *limit
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	raw, err := c.callTool(ctx, "mempalace_event_awaiting", call)
	if err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	return printAsks(stdout, raw)
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
