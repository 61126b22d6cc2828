package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func goldenAgents() agentsReply {
	return agentsReply{WindowS: 600, Agents: []agentRow{
		{Agent: "alice@laptop", Replicas: []string{"rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
			Events: 1532, LastHLC: "1796119195000-000000-rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", LastSeen: stamp(5 * time.Second),
			LastCreatedAt: "2026-12-01T09:59:55Z", Shared: true, ClaimConflicts: count(2)},
		{Agent: "bob@ci", Replicas: []string{"rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, Events: 12,
			LastSeen: stamp(2*time.Hour + 30*time.Minute), ClaimConflicts: count(0)},
		{Agent: "carol@desk", Replicas: []string{"rep_a", "rep_b", "rep_c", "rep_d"}, Events: 4,
			LastSeen: stamp(3*time.Minute + 7*time.Second), ClaimConflicts: count(0)},
		// No claim_conflicts: the row of a node that does not count them.
		{Agent: "legacy", Replicas: []string{""}, Events: 1},
	}}
}

func count(n int) *int { return &n }

func TestRenderAgents_Golden(t *testing.T) {
	var b bytes.Buffer
	if err := renderAgents(&b, goldenAgents(), goldenNow); err != nil {
		t.Fatal(err)
	}
	if err := renderAgents(&b, agentsReply{}, goldenNow); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "agents.golden", b.Bytes())
}

func TestRunAgents_HTTP(t *testing.T) {
	clearClientEnv(t)
	var gotWindow string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/lsnode/agents" {
			http.NotFound(w, r)
			return
		}
		gotWindow = r.URL.Query().Get("window")
		json.NewEncoder(w).Encode(goldenAgents())
	}))
	t.Cleanup(srv.Close)

	code, out, errOut := runCLI(t, "agents", "--addr", srv.URL, "--window", "90s")
	if code != exitOK || !strings.HasPrefix(out, "AGENT ") || !strings.Contains(out, "alice@laptop") || errOut != "" {
		t.Fatalf("agents: exit %d\n%s%s", code, out, errOut)
	}
	if gotWindow != "1m30s" {
		t.Fatalf("window sent = %q, want 1m30s", gotWindow)
	}
	code, out, _ = runCLI(t, "agents", "--addr", srv.URL, "--json")
	var reply agentsReply
	if err := json.Unmarshal([]byte(out), &reply); err != nil || code != exitOK || len(reply.Agents) != 4 {
		t.Fatalf("agents --json: exit %d, %v\n%s", code, err, out)
	}
	if gotWindow != "10m0s" {
		t.Fatalf("default window sent = %q, want 10m0s", gotWindow)
	}
}

func TestRunAgents_Errors(t *testing.T) {
	clearClientEnv(t)
	python := rosterServer(t, "", map[string]any{"/sync/peers": goldenPeers()}) // no /lsnode/agents
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"route missing", []string{"agents", "--addr", python.URL}, exitFailure, "lsnode agents: 404 Not Found"},
		{"negative window", []string{"agents", "--window", "-1m"}, exitUsage, "--window must not be negative"},
		{"bad window", []string{"agents", "--window", "soon"}, exitUsage, `--window: want a duration with a unit, such as 30s or 5m, got "soon"`},
		{"window with cycles", []string{"agents", "--cycles", "--window", "1m"}, exitUsage, "it does not apply to --cycles"},
		{"limit without cycles", []string{"agents", "--limit", "3"}, exitUsage, "--limit applies to --cycles only"},
		{"negative limit", []string{"agents", "--cycles", "--limit=-1"}, exitUsage, "--limit must not be negative"},
		{"cycles route missing", []string{"agents", "--cycles", "--addr", python.URL}, exitFailure, "lsnode agents: 404 Not Found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tc.code, tc.want)
			}
		})
	}
}

// TestAgents_Cycles: `lsnode agents --cycles` prints each wait-for cycle
// in wait order with, per wait, the asks owed, the oldest and its age;
// --json prints the node's answer; --limit bounds the cycles. Ann's
// token cannot read ben's ask to cat, so for it there is no cycle.
func TestAgents_Cycles(t *testing.T) {
	f := startViewsNode(t)
	bossW := [][]string{
		{"boss → w → boss"},
		{"", "boss → w", "1", "<bossAsk>", "8m0s"},
		{"", "w → boss", "2", "<claimOther>", "7m59s"},
	}
	annBenCat := [][]string{
		{"ann → ben → cat → ann"},
		{"", "ann → ben", "1", "<annAsk>", "10m0s"},
		{"", "ben → cat", "1", "<benAsk>", "9m0s"},
		{"", "cat → ann", "1", "<catAsk>", "8m0s"},
	}
	header := [][]string{{"CYCLE", "ASKS", "OLDEST ASK", "AGE"}}
	legend := "wait-for cycles. a → b: a asked b and waits on its reply; ASKS counts the asks b owes a."
	for _, tc := range []struct {
		name    string
		token   string
		args    []string
		rows    [][]string
		trailer []string
	}{
		{"all", f.shared, nil, slices.Concat(header, bossW, annBenCat), []string{"2 " + legend}},
		{"limit", f.shared, []string{"--limit=1"}, slices.Concat(header, bossW),
			[]string{"1 " + legend, "More cycles may exist: the search stopped at its limit (--limit, at most 100) or its step bound."}},
		{"ann's scope", f.ann, nil, [][]string{{"no wait-for cycles"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := f.run(t, tc.token, append([]string{"agents", "--cycles"}, tc.args...)...)
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			rows, trailer := tableOf(f.named(out))
			if !reflect.DeepEqual(rows, tc.rows) || !reflect.DeepEqual(trailer, tc.trailer) {
				t.Errorf("got\n%s\nwant rows %q and %q", f.named(out), tc.rows, tc.trailer)
			}
		})
	}

	code, out, errOut := f.run(t, f.shared, "agents", "--cycles", "--json")
	var reply cyclesReply
	if err := json.Unmarshal([]byte(out), &reply); err != nil || code != exitOK || errOut != "" {
		t.Fatalf("--json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	age := func(s int64) *int64 { return &s }
	want := cyclesReply{Cycles: []waitCycle{
		{Agents: []string{"boss", "w"}, Edges: []waitEdge{
			{From: "boss", To: "w", Count: 1, Asks: []string{f.ids["bossAsk"]}, OldestAgeS: age(480)},
			{From: "w", To: "boss", Count: 2, Asks: []string{f.ids["claimOther"], f.ids["claimNode"]}, OldestAgeS: age(479)},
		}},
		{Agents: []string{"ann", "ben", "cat"}, Edges: []waitEdge{
			{From: "ann", To: "ben", Count: 1, Asks: []string{f.ids["annAsk"]}, OldestAgeS: age(600)},
			{From: "ben", To: "cat", Count: 1, Asks: []string{f.ids["benAsk"]}, OldestAgeS: age(540)},
			{From: "cat", To: "ann", Count: 1, Asks: []string{f.ids["catAsk"]}, OldestAgeS: age(480)},
		}},
	}}
	if !reflect.DeepEqual(reply, want) || !strings.Contains(out, `"count": 2, "truncated": false}`) {
		t.Fatalf("--json:\n%s", f.named(out))
	}
}

// TestAgents_ConflictsColumn: the roster's CONFLICTS column counts the
// asks each agent owes and claimed through two replicas, and a note says
// what that means; --json carries claim_conflicts.
func TestAgents_ConflictsColumn(t *testing.T) {
	f := startViewsNode(t)
	code, out, errOut := f.run(t, f.shared, "agents")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	rows, trailer := tableOf(f.named(out))
	// LAST SEEN is measured against this machine's clock: left out.
	got := map[string][]string{}
	for _, r := range rows {
		got[r[0]] = []string{r[1], r[3], r[4], r[5]}
	}
	want := map[string][]string{
		"AGENT": {"REPLICAS", "EVENTS", "SHARED", "CONFLICTS"},
		"w":     {replicasCell(sortedPair("<node>", "<other>", f.node.Store().ReplicaID() < f.other)), "2", "yes", "1"},
		"boss":  {"<node>", "1", "-", "0"}, "ann": {"<node>", "1", "-", "0"}, "ben": {"<node>", "1", "-", "0"},
		"cat": {"<node>", "1", "-", "0"}, "dave": {"<node>", "1", "-", "0"},
	}
	if !reflect.DeepEqual(got, want) || len(trailer) != 5 || trailer[3] != "CONFLICTS: asks the agent owes and claimed through two or more replicas, the same name" {
		t.Fatalf("got\n%s\nwant cells %q", f.named(out), want)
	}
	_, out, _ = f.run(t, f.shared, "agents", "--json")
	var reply agentsReply
	if err := json.Unmarshal([]byte(out), &reply); err != nil {
		t.Fatal(err)
	}
	for _, a := range reply.Agents {
		if want := map[string]int{"w": 1}[a.Agent]; a.ClaimConflicts == nil || *a.ClaimConflicts != want {
			t.Errorf("--json: %s claim_conflicts %v; want %d", a.Agent, a.ClaimConflicts, want)
		}
	}
}

// sortedPair is a and b in the order of the ids they stand for.
func sortedPair(a, b string, aFirst bool) []string {
	if aFirst {
		return []string{a, b}
	}
	return []string{b, a}
}
