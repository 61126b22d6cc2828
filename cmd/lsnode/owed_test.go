package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestPrintOwed: the owed table is the event table with each event's
// claim after its status, written as lsnode awaiting writes it: none,
// agent@replica, and the conflict marked.
func TestPrintOwed(t *testing.T) {
	raw := json.RawMessage(`{"events": [
  {"id": "evt_1", "seq": 1, "type": "task.request", "stream": "s", "room": "r", "from_agent": "boss", "to_agent": "w",
   "status": "open", "body": "first", "created_at": "2026-12-01T09:00:01Z",
   "claimed_by": null, "claimed_from": null, "claim_conflict": false},
  {"id": "evt_2", "seq": 2, "type": "task.request", "stream": "s", "room": "r", "from_agent": "boss", "to_agent": "w",
   "status": "ready", "body": "second\nline", "created_at": "2026-12-01T09:00:02Z",
   "claimed_by": "w", "claimed_from": "rep_a", "claim_conflict": false},
  {"id": "evt_3", "seq": 3, "type": "task.request", "stream": "s", "room": "r", "from_agent": "boss", "to_agent": "w",
   "status": "claimed", "body": "third", "created_at": "2026-12-01T09:00:03Z",
   "claimed_by": "w", "claimed_from": "rep_b", "claim_conflict": true}
], "count": 3}`)
	var out bytes.Buffer
	if err := printOwed(&out, raw); err != nil {
		t.Fatal(err)
	}
	want := `SEQ  CREATED               TYPE          FROM  TO  STATUS   CLAIMED             STREAM/ROOM  ID     BODY
1    2026-12-01T09:00:01Z  task.request  boss  w   open     -                   s/r          evt_1  first
2    2026-12-01T09:00:02Z  task.request  boss  w   ready    w@rep_a             s/r          evt_2  second …
3    2026-12-01T09:00:03Z  task.request  boss  w   claimed  w@rep_b (conflict)  s/r          evt_3  third
`
	if out.String() != want {
		t.Fatalf("owed table:\n%s\nwant\n%s", out.String(), want)
	}
	// The awaiting table writes the same claims the same way.
	var asks bytes.Buffer
	if err := printAsks(&asks, json.RawMessage(strings.Replace(string(raw), `"events"`, `"asks"`, 1))); err != nil {
		t.Fatal(err)
	}
	for _, cell := range []string{"w@rep_a ", "w@rep_b (conflict) ", "CLAIMED "} {
		if !strings.Contains(asks.String(), cell) {
			t.Errorf("awaiting table without %q:\n%s", cell, asks.String())
		}
	}
	if err := printOwed(&out, json.RawMessage(`{"events": 5}`)); err == nil || !strings.Contains(err.Error(), "decode result") {
		t.Errorf("a malformed answer: %v", err)
	}
}

// TestClient_OwedShowsTheClaim: through a node, lsnode owed lists an
// ask its agent claimed with the claim, and --json carries the members.
func TestClient_OwedShowsTheClaim(t *testing.T) {
	n := startNode(t, t.TempDir(), "127.0.0.1:0", "")
	addr := "--addr=" + n.URL()
	out := mustCLI(t, "events", "append", addr, "--json", "--type=task.request", "--stream=s", "--room=r",
		"--from=alice", "--to=bob", "--body=review it")
	var res struct {
		Event struct {
			ID string `json:"id"`
		} `json:"event"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("append: %v\n%s", err, out)
	}
	// The one row's cells, under SEQ CREATED TYPE FROM TO STATUS CLAIMED
	// STREAM/ROOM ID BODY.
	row := func(out string) []string {
		t.Helper()
		lines := strings.Split(out, "\n")
		if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "SEQ CREATED TYPE FROM TO STATUS CLAIMED STREAM/ROOM ID BODY" {
			t.Fatalf("owed table:\n%s", out)
		}
		return strings.Fields(lines[1])
	}
	if f := row(mustCLI(t, "owed", addr, "--agent=bob")); f[5] != "-" || f[6] != "-" || f[8] != res.Event.ID {
		t.Fatalf("owed, unclaimed: %q", f)
	}
	mustCLI(t, "events", "ack", addr, "--event="+res.Event.ID, "--from=bob", "--status=claimed")
	if f := row(mustCLI(t, "owed", addr, "--agent=bob")); f[5] != "claimed" || f[6] != "bob@"+n.Store().ReplicaID() || f[8] != res.Event.ID {
		t.Fatalf("owed, claimed: %q", f)
	}
	out = mustCLI(t, "owed", addr, "--agent=bob", "--json")
	if !strings.Contains(out, `"claimed_by": "bob"`) || !strings.Contains(out, `"claim_conflict": false`) {
		t.Fatalf("owed --json:\n%s", out)
	}
}
