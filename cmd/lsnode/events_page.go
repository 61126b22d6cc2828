package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"

	"github.com/lsnode/lsnode/internal/pyhub/rules"
)

// eventsPage is an {"events", "count", "cursor"} answer of event_list.
type eventsPage struct {
	Events []wireEvent `json:"events"`
	Cursor string      `json:"cursor"`
}

// noneOlder reports whether a newest-first page is known to be the last:
// it holds fewer events than asked (limit, 0 for the node's default) and
// no event matching call is older than its oldest. The answer does not
// say whether the node cut the page short at its --max-page-bytes, so a
// short page is checked with a request for one older event; a full page
// is not known to be the last.
func noneOlder(ctx context.Context, c *nodeClient, call map[string]any, page eventsPage, limit int) (bool, error) {
	asked := rules.DefaultListLimit
	if limit > 0 {
		asked = min(limit, rules.MaxListLimit)
	}
	if len(page.Events) == 0 || len(page.Events) >= asked {
		return false, nil
	}
	probe := maps.Clone(call)
	probe["before_event_id"], probe["limit"], probe["preview"] = page.Events[len(page.Events)-1].ID, 1, true
	raw, err := c.callTool(ctx, "mempalace_event_list", probe)
	if err != nil {
		return false, err
	}
	var older eventsPage
	if err := json.Unmarshal(raw, &older); err != nil {
		return false, fmt.Errorf("decode result: %w", err)
	}
	return len(older.Events) == 0, nil
}

// printPage prints a page of events, then the flag that fetches the next
// page: for a page newest first, --before its last (oldest) event, unless
// the page is the last (its cursor covers every event held, so it resumes
// only with events written after the list); in order, --cursor, which
// also picks up events written later.
func printPage(stdout io.Writer, page eventsPage, newestFirst, last bool) error {
	if err := printEvents(stdout, page.Events); err != nil {
		return err
	}
	n := plural(len(page.Events), "event")
	switch {
	case newestFirst && last:
		fmt.Fprintf(stdout, "\n%s, newest first; none older\n", n)
	case newestFirst && len(page.Events) > 0:
		fmt.Fprintf(stdout, "\n%s, newest first; older ones with --before %s\n", n, page.Events[len(page.Events)-1].ID)
	case !newestFirst && page.Cursor != "":
		fmt.Fprintf(stdout, "\n%s; resume with --cursor %s\n", n, page.Cursor)
	}
	return nil
}
