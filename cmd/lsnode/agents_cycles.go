package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// cyclesReply is GET /lsnode/cycles: the wait-for cycles among the asks
// the token may read.
type cyclesReply struct {
	Cycles    []waitCycle `json:"cycles"`
	Truncated bool        `json:"truncated"`
}

// waitCycle is one cycle: Agents[i] waits on Agents[i+1], the last on
// the first, and Edges[i] is that wait.
type waitCycle struct {
	Agents []string   `json:"agents"`
	Edges  []waitEdge `json:"edges"`
}

// waitEdge is From waiting on To: the Count asks From wrote that To has
// not answered, the oldest of their ids, and the oldest's age (nil when
// the node could not measure it).
type waitEdge struct {
	From       string   `json:"from"`
	To         string   `json:"to"`
	Count      int      `json:"count"`
	Asks       []string `json:"asks"`
	OldestAgeS *int64   `json:"oldest_age_s"`
}

// runCycles prints `lsnode agents --cycles`: at most limit cycles (0:
// the node's default).
func runCycles(ctx context.Context, c *nodeClient, limit int, asJSON bool, stdout io.Writer) error {
	path := "/lsnode/cycles"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	var raw json.RawMessage
	if err := c.getJSON(ctx, path, &raw); err != nil {
		return err
	}
	if asJSON {
		return printRaw(stdout, raw)
	}
	var reply cyclesReply
	if err := json.Unmarshal(raw, &reply); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return renderCycles(stdout, reply)
}

// renderCycles writes each cycle as "a → b → c → a", then a row per
// wait: how many asks, the oldest's id and age.
func renderCycles(w io.Writer, r cyclesReply) error {
	if len(r.Cycles) == 0 {
		_, err := fmt.Fprintln(w, "no wait-for cycles")
		return err
	}
	var t table
	t.row("CYCLE", "ASKS", "OLDEST ASK", "AGE")
	for _, c := range r.Cycles {
		if len(c.Agents) == 0 {
			continue
		}
		t.row(strings.Join(append(c.Agents, c.Agents[0]), " → "))
		for _, e := range c.Edges {
			oldest, age := "-", "-"
			if len(e.Asks) > 0 {
				oldest = e.Asks[0]
			}
			if e.OldestAgeS != nil {
				age = (time.Duration(*e.OldestAgeS) * time.Second).String()
			}
			t.row("  "+e.From+" → "+e.To, strconv.Itoa(e.Count), oldest, age)
		}
	}
	if err := t.write(w); err != nil {
		return err
	}
	var notes strings.Builder
	fmt.Fprintf(&notes, "\n%d wait-for cycles. a → b: a asked b and waits on its reply; ASKS counts the asks b owes a.\n", len(r.Cycles))
	if r.Truncated {
		notes.WriteString("More cycles may exist: the search stopped at its limit (--limit, at most 100) or its step bound.\n")
	}
	_, err := io.WriteString(w, notes.String())
	return err
}
