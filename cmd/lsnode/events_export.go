package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
)

// exportPage is the page size of `events export`: the most
// /logstream/events returns.
const exportPage = 500

// eventsExport writes every event that matches the filters, oldest
// first, as JSON Lines (one event object a line, as /logstream/events
// returns it), from the start of the log or after --cursor, then says on
// stderr how many it wrote and the cursor that resumes after them (with
// --json, as one object {"events", "cursor"}). It reads /logstream/events
// page by page by portable cursor, so an export can be resumed on any node
// of the mesh. An export that fails after writing events still says the
// cursor after the last whole page written (a page cut short is written
// again on resume); one that fails before says none, so a cursor the node
// refused is never offered again.
func eventsExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("events export", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	ta := newToolArgs(fs.FlagSet)
	addFilterFlags(ta)
	ta.str("since-created-at", "since_created_at", "only events created at or after YYYY-MM-DD[THH:MM:SSZ]")
	ta.str("cursor", "cursor", "resume after this portable cursor (printed by an earlier export; any node)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	q := url.Values{}
	for k, v := range ta.collect() {
		q.Set(k, v.(string))
	}
	q.Set("limit", fmt.Sprint(exportPage))
	out := bufio.NewWriter(stdout)
	n, cursor, err := exportPages(ctx, c, q, out)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil && n == 0 {
		return err
	}
	if rerr := reportExport(stderr, *cf.asJSON, n, cursor, err != nil); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// reportExport says how many events an export wrote and the cursor that
// resumes after them.
func reportExport(w io.Writer, asJSON bool, n int, cursor string, failed bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"events": n, "cursor": cursor})
	}
	var err error
	switch {
	case failed:
		_, err = fmt.Fprintf(w, "exported %s before the failure; resume with --cursor %s\n", plural(n, "event"), cursor)
	case n == 0:
		_, err = fmt.Fprintf(w, "exported 0 events: none matched; resume with --cursor %s\n", cursor)
	default:
		_, err = fmt.Fprintf(w, "exported %s; resume with --cursor %s\n", plural(n, "event"), cursor)
	}
	return err
}

// exportPages writes the pages of q until an empty one and returns how
// many events it wrote and the cursor after the last page read: the
// empty page's when the node gives one (it resumes after what the export
// has seen), else the last page's.
func exportPages(ctx context.Context, c *nodeClient, q url.Values, out *bufio.Writer) (int, string, error) {
	n, cursor := 0, q.Get("cursor")
	for {
		var page struct {
			Events []json.RawMessage `json:"events"`
			Cursor string            `json:"cursor"`
		}
		if err := c.getJSON(ctx, "/logstream/events?"+q.Encode(), &page); err != nil {
			return n, cursor, err
		}
		if page.Cursor == "" {
			return n, cursor, fmt.Errorf("the node at %s returns no portable cursor (a Python hub?): export needs one to page", c.base)
		}
		if len(page.Events) == 0 {
			return n, page.Cursor, nil
		}
		var line bytes.Buffer
		for _, ev := range page.Events {
			line.Reset()
			if err := json.Compact(&line, ev); err != nil {
				return n, cursor, fmt.Errorf("event is not JSON: %w", err)
			}
			line.WriteByte('\n')
			if _, err := out.Write(line.Bytes()); err != nil {
				return n, cursor, &outputError{err: err}
			}
			n++
		}
		if err := out.Flush(); err != nil {
			return n, cursor, &outputError{err: err}
		}
		cursor = page.Cursor
		q.Set("cursor", cursor)
		q.Del("since_event_id")
	}
}
