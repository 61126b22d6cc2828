package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// wireEvent is the part of an event dict the tables show.
type wireEvent struct {
	ID            string  `json:"id"`
	Seq           int64   `json:"seq"`
	OriginReplica string  `json:"origin_replica"`
	OriginSeq     int64   `json:"origin_seq"`
	Type          string  `json:"type"`
	Stream        string  `json:"stream"`
	Room          string  `json:"room"`
	Topic         *string `json:"topic"`
	FromAgent     string  `json:"from_agent"`
	ToAgent       *string `json:"to_agent"`
	CorrelationID *string `json:"correlation_id"`
	Status        *string `json:"status"`
	Body          string  `json:"body"`
	CreatedAt     string  `json:"created_at"`
}

// bodyWidth is how much of a body's first line a table shows.
const bodyWidth = 60

// eventHeader heads the columns of eventCells.
var eventHeader = []string{"SEQ", "CREATED", "TYPE", "FROM", "TO", "STATUS", "STREAM/ROOM", "ID", "BODY"}

// eventCells are the cells of an event's row in an events table.
func eventCells(e wireEvent) []string {
	return []string{strconv.FormatInt(e.Seq, 10), e.CreatedAt, e.Type, e.FromAgent, orDash(e.ToAgent), orDash(e.Status),
		e.Stream + "/" + e.Room, e.ID, oneLine(e.Body, bodyWidth)}
}

// printEvents writes events as a table.
func printEvents(w io.Writer, events []wireEvent) error {
	var t table
	t.row(eventHeader...)
	for _, e := range events {
		t.row(eventCells(e)...)
	}
	return t.write(w)
}

// claimColumn is the header of a claim's column in the tables of the
// coordination views (owed, awaiting).
const claimColumn = "CLAIMED"

// wireClaim is the claim the coordination views add to an ask.
type wireClaim struct {
	ClaimedBy     *string `json:"claimed_by"`
	ClaimedFrom   *string `json:"claimed_from"`
	ClaimConflict bool    `json:"claim_conflict"`
}

// cell is the claim as a table shows it: agent@replica, "-" when
// unclaimed, and "(conflict)" after it when claims came through two or
// more replicas.
func (c wireClaim) cell() string {
	cell := orDash(c.ClaimedBy)
	if c.ClaimedBy != nil {
		cell += "@" + orDash(c.ClaimedFrom)
	}
	if c.ClaimConflict {
		cell += " (conflict)"
	}
	return cell
}

// printKV writes label/value pairs as a two-column table.
func printKV(w io.Writer, rows [][2]string) error {
	var t table
	for _, r := range rows {
		t.row(r[0], r[1])
	}
	return t.write(w)
}

func orDash(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

// oneLine is the first line of s (ended by \n or \r), cut to n columns,
// with an ellipsis when cut or when more text follows. Other control
// characters (tab, escape sequences) become spaces: a body must not
// steer the terminal or split the row.
func oneLine(s string, n int) string {
	first, more := s, false
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		first, more = s[:i], strings.TrimSpace(s[i:]) != ""
	}
	first = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, first)
	if cellWidth(first) > n {
		return cutToWidth(first, n-1) + "…"
	}
	if more {
		return first + " …"
	}
	return first
}

// printRaw writes a tool's JSON result for scripts, ending in a newline.
func printRaw(w io.Writer, raw json.RawMessage) error {
	_, err := fmt.Fprintf(w, "%s\n", strings.TrimRight(string(raw), "\n"))
	return err
}
