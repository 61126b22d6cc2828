package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// runEvents dispatches `lsnode events append|list|tail|ack`.
func runEvents(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	subs := map[string]func(context.Context, []string, io.Writer, io.Writer) error{
		"append": eventsAppend, "list": eventsList, "tail": eventsTail, "ack": eventsAck,
	}
	if len(args) == 0 {
		return usageErrorf("give a subcommand: append, list, tail or ack")
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		fmt.Fprintln(stdout, "usage: lsnode events append|list|tail|ack [flags]\nRun 'lsnode events <subcommand> -h' for its flags.")
		return nil
	}
	run, ok := subs[args[0]]
	if !ok {
		return usageErrorf("unknown subcommand %q: want append, list, tail or ack", args[0])
	}
	return run(ctx, args[1:], stdout, stderr)
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

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

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
	fs := newFlagSet("events append", stderr)
	cf := addClientFlags(fs)
	ta := newToolArgs(fs)
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
	if len(artifacts) > 0 {
		call["artifact_ids"] = []string(artifacts)
	}
	return writeCall(ctx, cf, "mempalace_event_append", call, stdout)
}

func eventsAck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("events ack", stderr)
	cf := addClientFlags(fs)
	ta := newToolArgs(fs)
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
	fs := newFlagSet("events list", stderr)
	cf := addClientFlags(fs)
	ta := newToolArgs(fs)
	addFilterFlags(ta)
	ta.str("before", "before_event_id", "only events before this event id (this node)")
	ta.str("since-created-at", "since_created_at", "only events created at or after YYYY-MM-DD[THH:MM:SSZ]")
	ta.str("cursor", "cursor", "portable cursor of a previous page (any node)")
	ta.str("order", "order", "asc or desc (default: asc when resuming, else desc)")
	limit := fs.Int("limit", 0, "most events to return (node default 50, at most 500)")
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
	return printPage(stdout, raw, *cf.asJSON)
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

// printPage prints an {"events", "count", "cursor"} result.
func printPage(stdout io.Writer, raw json.RawMessage, asJSON bool) error {
	if asJSON {
		return printRaw(stdout, raw)
	}
	var page struct {
		Events []wireEvent `json:"events"`
		Cursor string      `json:"cursor"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	if err := printEvents(stdout, page.Events); err != nil {
		return err
	}
	if page.Cursor != "" {
		fmt.Fprintf(stdout, "\n%d events; resume with --cursor %s\n", len(page.Events), page.Cursor)
	}
	return nil
}
