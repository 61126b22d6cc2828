package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// runEvents dispatches `lsnode events append|list|tail|ack|search|export`.
func runEvents(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "events", eventsCommands(), args, stdout, stderr)
}

func eventsCommands() []command {
	return []command{
		{name: "append", help: "append an event (mempalace_event_append)", run: eventsAppend},
		{name: "list", help: "list events, newest first unless resuming after an event or a cursor (mempalace_event_list)", run: eventsList},
		{name: "tail", help: "follow events as they are appended, until interrupted (/logstream/stream)", run: eventsTail},
		{name: "ack", help: "acknowledge an event (mempalace_event_ack)", run: eventsAck},
		{name: "search", args: "QUERY", help: "full-text search of the events, best matches first or oldest first, with the list filters (/logstream/search)", run: eventsSearch},
		{name: "export", help: "write the events matching the filters as JSON Lines, oldest first, resumable by cursor (/logstream/events)", run: eventsExport},
	}
}

// toolArgs collects the arguments of a tool call from flags: only the
// flags given end up in the call, so the node applies its own defaults.
type toolArgs struct {
	fs     *flag.FlagSet
	names  map[string]string // flag name -> argument name
	values map[string]*string
}

func newToolArgs(fs *flag.FlagSet) *toolArgs {
	return &toolArgs{fs: fs, names: map[string]string{}, values: map[string]*string{}}
}

// str declares a string flag carried as argument arg.
func (a *toolArgs) str(flagName, arg, usage string) {
	a.names[flagName] = arg
	a.values[flagName] = a.fs.String(flagName, "", usage)
}

// collect returns the arguments of the flags that were set.
func (a *toolArgs) collect() map[string]any {
	out := map[string]any{}
	a.fs.Visit(func(f *flag.Flag) {
		if arg, ok := a.names[f.Name]; ok {
			out[arg] = *a.values[f.Name]
		}
	})
	return out
}

// readBody returns the text of --body or --body-file ("-" reads stdin).
// Text that is not UTF-8 is refused: JSON would carry each bad byte as
// U+FFFD, so the node would store something else than was given.
func readBody(text, file, flagName string) (string, bool, error) {
	source := "--" + flagName
	switch {
	case text != "" && file != "":
		return "", false, usageErrorf("give --%s or --%s-file, not both", flagName, flagName)
	case file == "-":
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return "", false, err
		}
		text, source = string(b), "stdin"
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", false, err
		}
		text, source = string(b), file
	default:
		if text == "" {
			return "", false, nil
		}
	}
	if !utf8.ValidString(text) {
		return "", false, fmt.Errorf("%s is not UTF-8 text", source)
	}
	return text, true, nil
}

// metadataArg parses --metadata as a JSON value for the call.
func metadataArg(s string) (json.RawMessage, error) {
	if !json.Valid([]byte(s)) {
		return nil, usageErrorf("--metadata is not valid JSON: %s", s)
	}
	return json.RawMessage(s), nil
}

func eventsAppend(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("events append", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	ta := newToolArgs(fs.FlagSet)
	ta.str("type", "type", "event type, e.g. task.request (required)")
	ta.str("stream", "stream", "stream, e.g. project/x (required)")
	ta.str("room", "room", "room, e.g. delegation (required)")
	ta.str("from", "from_agent", "your agent name (required)")
	ta.str("to", "to_agent", "target agent, or '*' to broadcast")
	ta.str("topic", "topic", "topic")
	ta.str("correlation-id", "correlation_id", "task or conversation id")
	ta.str("branch", "branch", "Git branch")
	ta.str("base-commit", "base_commit", "Git commit")
	ta.str("status", "status", "open, claimed, ready, applied, blocked, failed or superseded")
	ta.str("idempotency-key", "idempotency_key", "retry key: a retry with the same key stores nothing new")
	body := fs.String("body", "", "body text")
	bodyFile := fs.String("body-file", "", "read the body from a file ('-' for stdin)")
	meta := fs.String("metadata", "", "metadata as a JSON object")
	var artifacts stringList
	fs.Var(&artifacts, "artifact", "id of a stored artifact to attach (repeatable)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	call := ta.collect()
	for _, req := range []string{"type", "stream", "room", "from"} {
		if _, ok := call[ta.names[req]]; !ok {
			return usageErrorf("--%s is required", req)
		}
	}
	text, ok, err := readBody(*body, *bodyFile, "body")
	if err != nil {
		return err
	}
	if ok {
		call["body"] = text
	}
	if *meta != "" {
		if call["metadata"], err = metadataArg(*meta); err != nil {
			return err
		}
	}
	if len(artifacts.values) > 0 {
		call["artifact_ids"] = artifacts.values
	}
	return writeCall(ctx, cf, "mempalace_event_append", call, stdout)
}

func eventsAck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("events ack", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	ta := newToolArgs(fs.FlagSet)
	ta.str("event", "event_id", "id of the event to acknowledge (required)")
	ta.str("from", "from_agent", "your agent name (required)")
	ta.str("status", "status", "status; applied, superseded, failed and blocked close the task")
	ta.str("body", "body", "notes")
	ta.str("topic", "topic", "topic (default: the target's)")
	ta.str("idempotency-key", "idempotency_key", "retry key")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	call := ta.collect()
	for _, req := range []string{"event", "from"} {
		if _, ok := call[ta.names[req]]; !ok {
			return usageErrorf("--%s is required", req)
		}
	}
	return writeCall(ctx, cf, "mempalace_event_ack", call, stdout)
}

// writeCall runs a writer tool and prints the event it stored.
func writeCall(ctx context.Context, cf *clientFlags, tool string, call map[string]any, stdout io.Writer) error {
	c, err := cf.client()
	if err != nil {
		return err
	}
	raw, err := c.callTool(ctx, tool, call)
	if err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	var res struct {
		Event     wireEvent `json:"event"`
		Duplicate bool      `json:"duplicate"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("decode %s result: %w", tool, err)
	}
	if err := printEvents(stdout, []wireEvent{res.Event}); err != nil {
		return err
	}
	if res.Duplicate {
		fmt.Fprintln(stdout, "(duplicate: the idempotency key matched an earlier write; nothing new was stored)")
	}
	return nil
}

func eventsList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("events list", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	ta := newToolArgs(fs.FlagSet)
	addFilterFlags(ta)
	ta.str("before", "before_event_id", "only events before this event id (this node)")
	ta.str("since-created-at", "since_created_at", "only events created at or after YYYY-MM-DD[THH:MM:SSZ]")
	ta.str("cursor", "cursor", "portable cursor of a previous page (any node)")
	ta.str("order", "order", "asc or desc (default: asc when resuming, else desc)")
	limit := intFlag(fs.FlagSet, "limit", 0, "most events to return (node default 50, at most 500)")
	preview := fs.Bool("preview", false, "cut bodies to 200 characters")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	call := ta.collect()
	if *limit != 0 {
		call["limit"] = *limit
	}
	if *preview {
		call["preview"] = true
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	raw, err := c.callTool(ctx, "mempalace_event_list", call)
	if err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	var page eventsPage
	if err := json.Unmarshal(raw, &page); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	desc := newestFirst(call)
	last := false
	if desc {
		if last, err = noneOlder(ctx, c, call, page, *limit); err != nil {
			return err
		}
	}
	return printPage(stdout, page, desc, last)
}

// newestFirst reports whether the node answers call newest first: asked
// to, or not told an order and resuming after no event or cursor.
func newestFirst(call map[string]any) bool {
	if order, ok := call["order"]; ok {
		return order == "desc"
	}
	_, since := call["since_event_id"]
	_, cursor := call["cursor"]
	return !since && !cursor
}

// addFilterFlags declares the event filters shared by list and tail.
func addFilterFlags(ta *toolArgs) {
	ta.str("stream", "stream", "only this stream")
	ta.str("room", "room", "only this room")
	ta.str("topic", "topic", "only this topic")
	ta.str("type", "type", "only this event type")
	ta.str("to", "to_agent", "only events addressed to this agent (broadcasts match too)")
	ta.str("writer", "writer", "only events written by this agent")
	ta.str("correlation-id", "correlation_id", "only this correlation id")
	ta.str("status", "status", "only this status")
	ta.str("since", "since_event_id", "only events after this event id (this node)")
}
