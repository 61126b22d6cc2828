package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
)

// The orders GET /logstream/search takes.
const (
	searchByRank = "rank" // best matches first
	searchByHLC  = "hlc"  // oldest first; the cursor resumes after the page
)

// eventsSearch runs `lsnode events search QUERY`: a full-text search of
// the events the token may read (GET /logstream/search), with the list's
// filters, as a table ranked best first or in HLC order, or --json.
func eventsSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("events search", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	ta := newToolArgs(fs.FlagSet)
	ta.str("stream", "stream", "only this stream")
	ta.str("room", "room", "only this room")
	ta.str("type", "type", "only this event type")
	ta.str("to", "to_agent", "only events addressed to this agent (broadcasts match too)")
	ta.str("writer", "from_agent", "only events written by this agent")
	ta.str("cursor", "cursor", "portable cursor of a previous search (any node)")
	order := fs.String("order", searchByRank, "rank (best matches first) or hlc (oldest first, resumable page by page with --cursor)")
	limit := intFlag(fs.FlagSet, "limit", 0, "most matches to return (node default 50, at most 500)")
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("give the search query as one argument (quote a query of several words)")
	}
	query := fs.Arg(0)
	if strings.TrimSpace(query) == "" {
		return usageErrorf("the search query is empty")
	}
	if *order != searchByRank && *order != searchByHLC {
		return usageErrorf("--order must be %s or %s, not %q", searchByRank, searchByHLC, *order)
	}
	if *limit < 0 {
		return usageErrorf("--limit must not be negative")
	}
	params := url.Values{"q": {query}, "order": {*order}}
	for name, v := range ta.collect() {
		params.Set(name, v.(string))
	}
	if *limit != 0 {
		params.Set("limit", strconv.Itoa(*limit))
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := c.getJSON(ctx, "/logstream/search?"+params.Encode(), &raw); err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	return printSearch(stdout, raw, *order == searchByRank)
}

// printSearch writes a search page as an events table, led by each
// match's RANK (1 the best) when ranked, then the count and the cursor:
// in HLC order it resumes after the page; ranked, it finds the matches
// written after the search.
func printSearch(w io.Writer, raw json.RawMessage, ranked bool) error {
	var page struct {
		Events []wireEvent `json:"events"`
		Cursor string      `json:"cursor"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return fmt.Errorf("decode result: %w", err)
	}
	var t table
	header := eventHeader
	if ranked {
		header = append([]string{"RANK"}, header...)
	}
	t.row(header...)
	for i, e := range page.Events {
		cells := eventCells(e)
		if ranked {
			cells = append([]string{strconv.Itoa(i + 1)}, cells...)
		}
		t.row(cells...)
	}
	if err := t.write(w); err != nil {
		return err
	}
	summary, next := "best first", "later matches with --cursor"
	if !ranked {
		summary, next = "oldest first", "resume with --cursor"
	}
	matches := "1 match"
	if n := len(page.Events); n != 1 {
		matches = fmt.Sprintf("%d matches", n)
	}
	fmt.Fprintf(w, "\n%s, %s", matches, summary)
	if page.Cursor != "" {
		fmt.Fprintf(w, "; %s %s", next, page.Cursor)
	}
	_, err := fmt.Fprintln(w)
	return err
}
