package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func goldenAgents() agentsReply {
	return agentsReply{WindowS: 600, Agents: []agentRow{
		{Agent: "alice@laptop", Replicas: []string{"rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
			Events: 1532, LastHLC: "1796119195000-000000-rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", LastSeen: stamp(5 * time.Second),
			LastCreatedAt: "2026-12-01T09:59:55Z", Shared: true},
		{Agent: "bob@ci", Replicas: []string{"rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, Events: 12,
			LastSeen: stamp(2*time.Hour + 30*time.Minute)},
		{Agent: "carol@desk", Replicas: []string{"rep_a", "rep_b", "rep_c", "rep_d"}, Events: 4,
			LastSeen: stamp(3*time.Minute + 7*time.Second)},
		{Agent: "legacy", Replicas: []string{""}, Events: 1},
	}}
}

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
		{"bad window", []string{"agents", "--window", "soon"}, exitUsage, "invalid value"},
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
