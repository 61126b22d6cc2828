package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// peersReply is the part of GET /sync/peers that `lsnode peers` reads: the
// Python hub's estate (docs/compatibility.md#peersjson-and-the-estate) and lsnode's extension
// under "lsnode", which a Python hub does not send.
type peersReply struct {
	Self struct {
		ReplicaID string `json:"replica_id"`
		Name      string `json:"name"`
	} `json:"self"`
	Peers  []pythonPeer  `json:"peers"`
	Lsnode *lsnodeEstate `json:"lsnode"`
}

// pythonPeer is one entry of the estate's "peers": a peer configured in
// peers.json and the outcome of its last pull.
type pythonPeer struct {
	Name          string  `json:"name"`
	URL           string  `json:"url"`
	ReplicaID     *string `json:"replica_id"`
	Reachable     *bool   `json:"reachable"`
	LastSuccessAt *string `json:"last_success_at"`
}

// lsnodeEstate is lsnode's extension of /sync/peers: every gossip member
// (this node first), how many agents wrote recently, and the gossip join
// through --join.
type lsnodeEstate struct {
	Members       []peerRow   `json:"members"`
	AgentsActive  *int64      `json:"agents_active"`
	AgentsWindowS *float64    `json:"agents_window_s"`
	Join          *joinStatus `json:"join"`
}

// joinStatus is the node's gossip join: pending while a join that reached
// none of its seeds is being retried.
type joinStatus struct {
	Pending     bool     `json:"pending"`
	Seeds       []string `json:"seeds"`
	Attempts    int      `json:"attempts"`
	LastError   *string  `json:"last_error"`
	LastAttempt *string  `json:"last_attempt"`
	NextAttempt *string  `json:"next_attempt"`
}

// peerRow is one member: the JSON of the lsnode extension, and of
// `lsnode peers --json`. Unknown figures are null.
type peerRow struct {
	Name          string   `json:"name"`
	ReplicaID     string   `json:"replica_id"`
	GossipAddr    string   `json:"gossip_addr"`
	GRPCAddr      string   `json:"grpc_addr"`
	HTTPAddr      string   `json:"http_addr"`
	State         string   `json:"state"`
	Self          bool     `json:"self"`
	LagOps        *int64   `json:"lag_ops"`
	LagSeconds    *float64 `json:"lag_seconds"`
	LastSync      *string  `json:"last_sync"`
	ClockOffsetMS *float64 `json:"clock_offset_ms"`
	Version       string   `json:"version"`
	Reason        string   `json:"reason,omitempty"`
}

// peersJSON is what `lsnode peers --json` prints.
type peersJSON struct {
	Members      []peerRow   `json:"members"`
	AgentsActive *int64      `json:"agents_active"`
	Join         *joinStatus `json:"join,omitempty"`
}

func runPeers(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("peers", stdout, stderr)
	cf := addClientFlags(fs.FlagSet)
	status := fs.String("status", "", "show only members whose STATE matches this regular expression (alive, suspect, dead, left, refused)")
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	filter, err := regexp.Compile(*status)
	if err != nil {
		return usageErrorf("--status: %v", err)
	}
	c, err := cf.client()
	if err != nil {
		return err
	}
	var reply peersReply
	if err := c.getJSON(ctx, "/sync/peers", &reply); err != nil {
		return err
	}
	rows := peerRows(reply)
	var agents *int64
	var join *joinStatus
	if reply.Lsnode != nil {
		agents, join = reply.Lsnode.AgentsActive, reply.Lsnode.Join
	}
	kept := filterRows(rows, filter)
	now := time.Now()
	if *cf.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(peersJSON{Members: kept, AgentsActive: agents, Join: join}); err != nil {
			return err
		}
	} else if !hasPeers(rows) {
		if err := renderNoPeers(stdout, agents); err != nil {
			return err
		}
	} else if err := renderPeers(stdout, kept, now); err != nil {
		return err
	}
	return joinPending(join, now)
}

// joinPending is the failure of a node whose gossip join has reached none
// of its seeds yet (it keeps retrying): the seeds, the attempts and the
// last error. nil when no join is pending.
func joinPending(j *joinStatus, now time.Time) error {
	if j == nil || !j.Pending {
		return nil
	}
	msg := fmt.Sprintf("gossip join pending: %s reached none of %s", plural(j.Attempts, "attempt"),
		strings.Join(j.Seeds, ", "))
	if j.NextAttempt != nil {
		if next, err := time.Parse(time.RFC3339Nano, *j.NextAttempt); err == nil {
			msg += fmt.Sprintf(" (next in %s)", max(0, next.Sub(now)).Round(100*time.Millisecond))
		}
	}
	if j.LastError != nil {
		msg += "; last error: " + *j.LastError
	}
	return errors.New(msg)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// peerRows lists lsnode's members, then the estate's configured peers
// that are not among them (Python hubs pulled over HTTP), whose state is
// alive after a successful pull, dead after a failed one, unknown before
// any. A Python hub answers with the latter only.
func peerRows(r peersReply) []peerRow {
	var rows []peerRow
	known := map[string]bool{}
	if r.Lsnode != nil {
		for _, m := range r.Lsnode.Members {
			rows = append(rows, m)
			known[m.ReplicaID] = true
		}
	} else if r.Self.ReplicaID != "" {
		rows = append(rows, peerRow{Name: r.Self.Name, ReplicaID: r.Self.ReplicaID, State: "alive", Self: true})
		known[r.Self.ReplicaID] = true
	}
	for _, p := range r.Peers {
		if p.ReplicaID != nil && known[*p.ReplicaID] {
			continue
		}
		rows = append(rows, pythonRow(p))
	}
	return rows
}

func pythonRow(p pythonPeer) peerRow {
	row := peerRow{Name: p.Name, HTTPAddr: p.URL, State: "unknown", LastSync: p.LastSuccessAt}
	if p.ReplicaID != nil {
		row.ReplicaID = *p.ReplicaID
	}
	if p.Reachable != nil {
		row.State = "dead"
		if *p.Reachable {
			row.State = "alive"
		}
	}
	return row
}

func filterRows(rows []peerRow, re *regexp.Regexp) []peerRow {
	out := []peerRow{}
	for _, r := range rows {
		if re.MatchString(r.State) {
			out = append(out, r)
		}
	}
	return out
}

// hasPeers reports whether any row is another replica.
func hasPeers(rows []peerRow) bool {
	for _, r := range rows {
		if !r.Self {
			return true
		}
	}
	return false
}

// renderNoPeers is the answer of a hub-and-spoke node: no peer replica,
// which says nothing about how many agents use it (RFC 003 §2,
// docs/architecture.md#rfcs).
func renderNoPeers(w io.Writer, agents *int64) error {
	if agents == nil {
		_, err := fmt.Fprintln(w, "no peer replicas; this node does not report active agents (not an lsnode node?)")
		return err
	}
	_, err := fmt.Fprintf(w, "no peer replicas; %d agents active\n", *agents)
	return err
}

// renderPeers writes the member table; now is the reference for LAST SYNC.
func renderPeers(w io.Writer, rows []peerRow, now time.Time) error {
	var t table
	t.row("NAME", "REPLICA", "GOSSIP ADDR", "GRPC ADDR", "STATE", "LAG OPS", "LAG SECONDS", "LAST SYNC", "CLOCK OFFSET", "VERSION")
	for _, r := range rows {
		name := r.Name
		if r.Self {
			name += " (self)"
		}
		lag, lagS, offset := lagOps(r.LagOps), lagSeconds(r.LagSeconds), clockOffset(r.ClockOffsetMS)
		if r.Self { // this node: no lag or offset to itself, whatever the node sends
			lag, lagS, offset = "-", "-", "-"
		}
		t.row(name, dash(r.ReplicaID), dash(r.GossipAddr), dash(r.GRPCAddr), r.State, lag, lagS, lastSync(r, now), offset, dash(r.Version))
	}
	if err := t.write(w); err != nil {
		return err
	}
	return renderReasons(w, rows)
}

// renderReasons explains each refused member below the table.
func renderReasons(w io.Writer, rows []peerRow) error {
	first := true
	for _, r := range rows {
		if r.State != "refused" || r.Reason == "" {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		if _, err := fmt.Fprintf(w, "%s refused: %s\n", r.Name, r.Reason); err != nil {
			return err
		}
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func lagOps(n *int64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatInt(*n, 10)
}

func lagSeconds(s *float64) string {
	if s == nil {
		return "-"
	}
	return strconv.FormatFloat(*s, 'f', 1, 64)
}

// lastSync is how long ago the last sync with the member completed:
// "-" for this node itself and refused nodes, "never" for a peer never
// synced.
func lastSync(r peerRow, now time.Time) string {
	if r.Self || r.State == "refused" {
		return "-"
	}
	if r.LastSync == nil {
		return "never"
	}
	t, err := time.Parse(time.RFC3339Nano, *r.LastSync)
	if err != nil {
		return *r.LastSync
	}
	return ago(now.Sub(t))
}

// ago renders an age as "12s ago", "3m4s ago", "2h5m ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Second:
		return "just now"
	case d < time.Hour:
		return d.Truncate(time.Second).String() + " ago"
	}
	h, m := d/time.Hour, d%time.Hour/time.Minute
	if m == 0 {
		return fmt.Sprintf("%dh ago", h)
	}
	return fmt.Sprintf("%dh%dm ago", h, m)
}

// clockOffset renders the peer's measured clock offset: "+1.5ms", "-2.35s".
func clockOffset(ms *float64) string {
	if ms == nil {
		return "-"
	}
	if math.Abs(*ms) < 1000 {
		return fmt.Sprintf("%+.1fms", *ms)
	}
	return fmt.Sprintf("%+.2fs", *ms/1000)
}
