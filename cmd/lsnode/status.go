package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// statusz is the part of /statusz that `lsnode status` shows.
type statusz struct {
	Server struct {
		Version string  `json:"version"`
		Scheme  string  `json:"scheme"`
		Uptime  float64 `json:"uptime_seconds"`
	} `json:"server"`
	Writer struct {
		ReadOnly bool `json:"read_only"`
	} `json:"writer"`
	Requests struct {
		Total    int64            `json:"total"`
		ByStatus map[string]int64 `json:"by_status"`
	} `json:"requests"`
	ReplicaID string `json:"replica_id"`
	Log       struct {
		Events      int64 `json:"events"`
		Artifacts   int64 `json:"artifacts"`
		Quarantined int64 `json:"quarantined"`
		Origins     int   `json:"origins"`
		DiskBytes   int64 `json:"disk_bytes"`
		logSizes
	} `json:"log"`
	Recovering    bool             `json:"recovering_own_origin"`
	VersionVector map[string]int64 `json:"version_vector"`
	CatchUp       []struct {
		Origin        string  `json:"origin"`
		Held          int64   `json:"held"`
		Target        int64   `json:"target"`
		BehindOps     int64   `json:"behind_ops"`
		BehindSeconds float64 `json:"behind_seconds"`
		OpsPerSecond  float64 `json:"ops_per_second"`
	} `json:"catch_up"`
	SSE struct {
		Clients    int `json:"clients"`
		MaxClients int `json:"max_clients"`
	} `json:"sse"`
	Integrity *struct {
		Fingerprint     string `json:"key_fingerprint"`
		UnsignedOrigins string `json:"unsigned_origins"`
		Verified        int64  `json:"ops_verified"`
		Refused         int64  `json:"ops_refused"`
		KeyConflicts    int64  `json:"key_conflicts"`
	} `json:"integrity"`
	// WaitForCycles is nil from a node that does not report them.
	WaitForCycles *struct {
		Count     int  `json:"count"`
		Truncated bool `json:"truncated"`
	} `json:"wait_for_cycles"`
}

// runStatus prints a node's health: identity, counts, version vector.
func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("status", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := c.getJSON(ctx, "/statusz", &raw); err != nil {
		return err
	}
	if *cf.asJSON {
		return printRaw(stdout, raw)
	}
	var s statusz
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("decode /statusz: %w", err)
	}
	return printStatus(stdout, c.base, s)
}

func printStatus(w io.Writer, base string, s statusz) error {
	l := s.Log
	rows := [][2]string{
		{"node", base},
		{"replica", s.ReplicaID},
		{"version", s.Server.Version},
		{"uptime", (time.Duration(s.Server.Uptime) * time.Second).String()},
		{"read_only", strconv.FormatBool(s.Writer.ReadOnly)},
		{"events", strconv.FormatInt(l.Events, 10)},
		{"artifacts", strconv.FormatInt(l.Artifacts, 10)},
		{"quarantined", strconv.FormatInt(l.Quarantined, 10)},
		{"origins", strconv.Itoa(l.Origins)},
		{"disk", fmt.Sprintf("%.1f MiB", float64(l.DiskBytes)/(1<<20))},
		{"sse clients", fmt.Sprintf("%d of %d", s.SSE.Clients, s.SSE.MaxClients)},
		{"requests", requestsLine(s.Requests.Total, s.Requests.ByStatus)},
	}
	rows = append(rows, l.logSizes.rows(s.Recovering)...) // status_sizes.go
	if in := s.Integrity; in != nil {
		rows = append(rows, [2]string{"node key", in.Fingerprint}, [2]string{"signatures",
			fmt.Sprintf("%d verified, %d refused, %d key conflicts; unsigned origins: %s",
				in.Verified, in.Refused, in.KeyConflicts, in.UnsignedOrigins)})
	}
	if c := s.WaitForCycles; c != nil {
		more := ""
		if c.Truncated {
			more = " or more"
		}
		rows = append(rows, [2]string{"wait-for cycles", fmt.Sprintf("%d%s (lsnode agents --cycles)", c.Count, more)})
	}
	if err := printKV(w, rows); err != nil {
		return err
	}
	origins := make([]string, 0, len(s.VersionVector))
	for o := range s.VersionVector {
		origins = append(origins, o)
	}
	sort.Strings(origins)
	fmt.Fprintln(w)
	var t table
	t.row("ORIGIN", "TOP")
	for _, o := range origins {
		self := ""
		if o == s.ReplicaID {
			self = "  (self)"
		}
		t.row(o, fmt.Sprintf("%d%s", s.VersionVector[o], self))
	}
	if err := t.write(w); err != nil {
		return err
	}
	if err := l.logSizes.printStreams(w); err != nil {
		return err
	}
	return printCatchUp(w, s)
}

// printCatchUp lists the origins this node is still catching up on (held
// short of what a peer holds), with progress and rate; nothing when none.
func printCatchUp(w io.Writer, s statusz) error {
	t := table{rows: [][]string{{"CATCHING UP", "HELD", "TARGET", "DONE", "BEHIND", "RATE"}}}
	for _, c := range s.CatchUp {
		if c.BehindOps == 0 {
			continue
		}
		t.row(c.Origin, strconv.FormatInt(c.Held, 10), strconv.FormatInt(c.Target, 10),
			fmt.Sprintf("%.1f%%", 100*float64(c.Held)/float64(max(c.Target, 1))),
			fmt.Sprintf("%d ops, %.1f s", c.BehindOps, c.BehindSeconds), fmt.Sprintf("%.0f ops/s", c.OpsPerSecond))
	}
	if len(t.rows) == 1 {
		return nil
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return t.write(w)
}

// requestsLine is "12 (200: 10, 404: 2)", or "0" before the first.
func requestsLine(total int64, by map[string]int64) string {
	if len(by) == 0 {
		return strconv.FormatInt(total, 10)
	}
	codes := make([]string, 0, len(by))
	for c := range by {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s: %d", c, by[c])
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}
