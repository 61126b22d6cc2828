package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// agentsReply is GET /lsnode/agents?window=DURATION: the agent roster the
// node derives from its log (store.Agents).
type agentsReply struct {
	Agents  []agentRow `json:"agents"`
	WindowS float64    `json:"window_s"`
}

// agentRow is one agent. last_seen is the wall time of its greatest HLC
// stamp (RFC 3339, UTC, milliseconds), null when no event has one.
type agentRow struct {
	Agent         string   `json:"agent"`
	Replicas      []string `json:"replicas"`
	Events        int64    `json:"events"`
	LastHLC       string   `json:"last_hlc"`
	LastSeen      *string  `json:"last_seen"`
	LastCreatedAt string   `json:"last_created_at"`
	Shared        bool     `json:"shared"`
	// ClaimConflicts counts the asks it owes that it claimed through two
	// or more replicas; nil from a node that does not report them.
	ClaimConflicts *int `json:"claim_conflicts"`
}

// agentsReplicasShown is how many replica ids a table row lists.
const agentsReplicasShown = 2

func runAgents(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("agents", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	window := durationFlag(fs.FlagSet, "window", 10*time.Minute,
		"flag an agent SHARED when it wrote through two replicas within this time of each other")
	cycles := fs.Bool("cycles", false, "list the wait-for cycles instead: agents each waiting on the next for a reply, the last on the first")
	limit := intFlag(fs.FlagSet, "limit", 0, "with --cycles: most cycles to list (node default and largest 100)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case *window < 0:
		return usageErrorf("--window must not be negative")
	case *cycles && given["window"]:
		return usageErrorf("--window flags shared names in the roster; it does not apply to --cycles")
	case given["limit"] && !*cycles:
		return usageErrorf("--limit applies to --cycles only")
	case *limit < 0:
		return usageErrorf("--limit must not be negative")
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	if *cycles {
		return runCycles(ctx, c, *limit, *cf.asJSON, stdout)
	}
	var raw json.RawMessage
	path := "/lsnode/agents?window=" + url.QueryEscape(window.String())
	if err := c.getJSON(ctx, path, &raw); err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	var reply agentsReply
	if err := json.Unmarshal(raw, &reply); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return renderAgents(stdout, reply, time.Now())
}

// renderAgents writes the roster, most recently seen first; now is the
// reference for LAST SEEN.
func renderAgents(w io.Writer, r agentsReply, now time.Time) error {
	if len(r.Agents) == 0 {
		_, err := fmt.Fprintln(w, "no agents in the log")
		return err
	}
	rows := append([]agentRow(nil), r.Agents...)
	sort.SliceStable(rows, func(i, j int) bool {
		if a, b := lastSeenTime(rows[i]), lastSeenTime(rows[j]); !a.Equal(b) {
			return a.After(b)
		}
		return rows[i].Agent < rows[j].Agent
	})
	var t table
	t.row("AGENT", "REPLICAS", "LAST SEEN", "EVENTS", "SHARED", "CONFLICTS")
	shared, conflicts := 0, 0
	for _, a := range rows {
		sharedCell := "-"
		if a.Shared {
			sharedCell, shared = "yes", shared+1
		}
		conflict := "-"
		if a.ClaimConflicts != nil {
			conflict, conflicts = strconv.Itoa(*a.ClaimConflicts), conflicts+*a.ClaimConflicts
		}
		t.row(a.Agent, replicasCell(a.Replicas), lastSeen(a, now), strconv.FormatInt(a.Events, 10), sharedCell, conflict)
	}
	if err := t.write(w); err != nil {
		return err
	}
	var notes strings.Builder
	if shared > 0 {
		window := time.Duration(r.WindowS * float64(time.Second))
		fmt.Fprintf(&notes, "\nSHARED: wrote through two or more replicas within %v of each other; the same name is\n"+
			"probably in use on two machines, which then hide each other's asks (docs/operations.md#coordination-views).\n", window)
	}
	if conflicts > 0 {
		notes.WriteString("\nCONFLICTS: asks the agent owes and claimed through two or more replicas, the same name\n" +
			"at work on two machines; `lsnode awaiting --agent ASKER` marks them (conflict).\n")
	}
	_, err := io.WriteString(w, notes.String())
	return err
}

// lastSeenTime is a row's last seen time, zero when unknown.
func lastSeenTime(a agentRow) time.Time {
	if a.LastSeen == nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, *a.LastSeen)
	return t
}

func lastSeen(a agentRow, now time.Time) string {
	if a.LastSeen == nil {
		return "-"
	}
	t, err := time.Parse(time.RFC3339Nano, *a.LastSeen)
	if err != nil {
		return *a.LastSeen
	}
	return ago(now.Sub(t))
}

// replicasCell lists up to agentsReplicasShown replica ids and counts the
// rest; "" (events with no origin) shows as "(none)".
func replicasCell(reps []string) string {
	if len(reps) == 0 {
		return "-"
	}
	reps = append([]string(nil), reps...)
	for i, r := range reps {
		if r == "" {
			reps[i] = "(none)"
		}
	}
	if len(reps) <= agentsReplicasShown {
		return strings.Join(reps, ",")
	}
	return fmt.Sprintf("%s +%d", strings.Join(reps[:agentsReplicasShown], ","), len(reps)-agentsReplicasShown)
}
