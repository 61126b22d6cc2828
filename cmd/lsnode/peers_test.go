package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// updateGolden rewrites testdata/*.golden: go test ./cmd/lsnode -run Golden -update
var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenNow is the reference time of the golden renderings.
var goldenNow = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func i64(n int64) *int64     { return &n }
func f64(f float64) *float64 { return &f }
func str(s string) *string   { return &s }
func boolp(b bool) *bool     { return &b }
func stamp(d time.Duration) *string {
	return str(goldenNow.Add(-d).Format(time.RFC3339Nano))
}

// goldenPeers is an lsnode /sync/peers answer: this node, a healthy peer,
// a lagging suspect one, a dead one never synced, one that left, a
// refused stranger, and a Python hub pulled over HTTP.
func goldenPeers() peersReply {
	var r peersReply
	r.Self.ReplicaID, r.Self.Name = "rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "node-a"
	r.Lsnode = &lsnodeEstate{AgentsActive: i64(7), AgentsWindowS: f64(600), Members: []peerRow{
		{Name: "node-a", ReplicaID: "rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", GossipAddr: "10.0.0.1:7946",
			GRPCAddr: "10.0.0.1:7000", HTTPAddr: "10.0.0.1:8765", State: "alive", Self: true, Version: "0.1.0",
			LagOps: i64(0), ClockOffsetMS: f64(0)}, // as the node sends them for itself
		{Name: "node-b", ReplicaID: "rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", GossipAddr: "10.0.0.2:7946",
			GRPCAddr: "10.0.0.2:7000", HTTPAddr: "10.0.0.2:8765", State: "alive", LagOps: i64(0),
			LagSeconds: f64(0), LastSync: stamp(1500 * time.Millisecond), ClockOffsetMS: f64(1.25), Version: "0.1.0"},
		{Name: "node-c", ReplicaID: "rep_cccccccccccccccccccccccccccccccc", GossipAddr: "10.0.0.3:7946",
			GRPCAddr: "10.0.0.3:7000", State: "suspect", LagOps: i64(1234), LagSeconds: f64(42.37),
			LastSync: stamp(95 * time.Second), ClockOffsetMS: f64(-2350), Version: "0.1.0"},
		{Name: "node-d", ReplicaID: "rep_dddddddddddddddddddddddddddddddd", GossipAddr: "10.0.0.4:7946",
			GRPCAddr: "10.0.0.4:7000", State: "dead", Version: "0.0.9"},
		{Name: "node-e", ReplicaID: "rep_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", GossipAddr: "10.0.0.5:7946",
			GRPCAddr: "10.0.0.5:7000", State: "left", LastSync: stamp(3*time.Hour + 25*time.Minute), Version: "0.1.0"},
		{Name: "stranger", ReplicaID: "rep_ffffffffffffffffffffffffffffffff", GossipAddr: "10.9.9.9:7946",
			State: "refused", Reason: `cluster id "other", want "prod"`, Version: "0.1.0"},
	}}
	r.Peers = []pythonPeer{
		{Name: "node-b", URL: "http://10.0.0.2:8765", ReplicaID: str("rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"), Reachable: boolp(true)},
		{Name: "windows", URL: "https://windows.example.ts.net", ReplicaID: str("rep_0123456789ab"),
			Reachable: boolp(true), LastSuccessAt: str("2026-12-01T09:59:48Z")},
	}
	return r
}

func TestRenderPeers_Golden(t *testing.T) {
	var b bytes.Buffer
	if err := renderPeers(&b, peerRows(goldenPeers()), goldenNow); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "peers.golden", b.Bytes())
}

func TestRenderPeers_PythonHubGolden(t *testing.T) {
	var r peersReply
	r.Self.ReplicaID, r.Self.Name = "rep_0123456789ab", "windows"
	r.Peers = []pythonPeer{
		{Name: "mac", URL: "https://mac.example.ts.net", ReplicaID: str("rep_ba9876543210"), Reachable: boolp(false),
			LastSuccessAt: str("2026-12-01T09:00:00Z")},
		{Name: "new", URL: "https://new.example.ts.net"},
	}
	var b bytes.Buffer
	if err := renderPeers(&b, peerRows(r), goldenNow); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "peers_python.golden", b.Bytes())
}

func TestRenderNoPeers_Golden(t *testing.T) {
	var b bytes.Buffer
	if err := renderNoPeers(&b, i64(12)); err != nil {
		t.Fatal(err)
	}
	if err := renderNoPeers(&b, nil); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "peers_hub_and_spoke.golden", b.Bytes())
}

func TestAgo(t *testing.T) {
	cases := map[time.Duration]string{
		-time.Second:                      "just now",
		300 * time.Millisecond:            "just now",
		12*time.Second + time.Millisecond: "12s ago",
		3*time.Minute + 4*time.Second:     "3m4s ago",
		2*time.Hour + 5*time.Minute:       "2h5m ago",
		49 * time.Hour:                    "49h ago",
	}
	for d, want := range cases {
		if got := ago(d); got != want {
			t.Errorf("ago(%v) = %q, want %q", d, got, want)
		}
	}
}

// rosterServer serves path with body, requiring token when not "".
func rosterServer(t *testing.T, token string, routes map[string]any) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		body, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if raw, isRaw := body.(string); isRaw {
			w.Write([]byte(raw))
			return
		}
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// clearClientEnv keeps the developer's environment out of CLI tests.
func clearClientEnv(t *testing.T) {
	for _, v := range []string{"LSNODE_ADDR", "LSNODE_TOKEN", "LSNODE_TOKEN_FILE", "MEMPALACE_MCP_HTTP_TOKEN"} {
		t.Setenv(v, "")
	}
}

func TestRunPeers_HTTP(t *testing.T) {
	clearClientEnv(t)
	t.Setenv("LSNODE_TOKEN", "sekrit")
	srv := rosterServer(t, "sekrit", map[string]any{"/sync/peers": goldenPeers()})

	code, out, errOut := runCLI(t, "peers", "--addr", srv.URL)
	if code != exitOK || !strings.HasPrefix(out, "NAME ") || !strings.Contains(out, "node-c") || errOut != "" {
		t.Fatalf("peers: exit %d\n%s%s", code, out, errOut)
	}

	code, out, _ = runCLI(t, "peers", "--addr", srv.URL, "--json", "--status", "^(dead|left)$")
	var got peersJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitOK {
		t.Fatalf("peers --json: exit %d, %v\n%s", code, err, out)
	}
	if len(got.Members) != 2 || got.Members[0].Name != "node-d" || got.Members[1].Name != "node-e" ||
		got.AgentsActive == nil || *got.AgentsActive != 7 {
		t.Fatalf("peers --json --status: %+v", got)
	}
}

func TestRunPeers_HubAndSpoke(t *testing.T) {
	clearClientEnv(t)
	var r peersReply
	r.Self.ReplicaID, r.Self.Name = "rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "hub"
	r.Lsnode = &lsnodeEstate{AgentsActive: i64(5), Members: []peerRow{
		{Name: "hub", ReplicaID: r.Self.ReplicaID, State: "alive", Self: true},
	}}
	srv := rosterServer(t, "", map[string]any{"/sync/peers": r})
	code, out, _ := runCLI(t, "peers", "--addr", srv.URL)
	if code != exitOK || out != "no peer replicas; 5 agents active\n" {
		t.Fatalf("hub and spoke: exit %d, %q", code, out)
	}
}

func TestRunPeers_Errors(t *testing.T) {
	clearClientEnv(t)
	srv := rosterServer(t, "sekrit", map[string]any{"/sync/peers": goldenPeers()})
	bad := rosterServer(t, "", map[string]any{"/sync/peers": "{not json"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unreachable", []string{"peers", "--addr", down}, exitFailure, "lsnode peers: cannot reach lsnode at " + down},
		{"no token", []string{"peers", "--addr", srv.URL}, exitFailure, "lsnode peers: 401 Unauthorized"},
		{"not json", []string{"peers", "--addr", bad.URL}, exitFailure, "answer of /sync/peers is not JSON"},
		{"bad regex", []string{"peers", "--addr", srv.URL, "--status", "("}, exitUsage, "lsnode peers: --status: error parsing regexp"},
		{"extra arg", []string{"peers", "x"}, exitUsage, `unexpected argument "x"`},
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

// goldenJoin is a join that reached none of its two seeds in 4 attempts.
func goldenJoin() *joinStatus {
	return &joinStatus{Pending: true, Seeds: []string{"10.0.0.1:7946", "10.0.0.2:7946"}, Attempts: 4,
		LastError:   str("failed to join 10.0.0.1:7946: dial tcp 10.0.0.1:7946: connect: connection refused; failed to join 10.0.0.2:7946: i/o timeout"),
		LastAttempt: stamp(200 * time.Millisecond), NextAttempt: stamp(-1400 * time.Millisecond)}
}

func TestJoinPending_Golden(t *testing.T) {
	var b bytes.Buffer
	for _, j := range []*joinStatus{goldenJoin(), {Pending: true, Seeds: []string{"10.0.0.1:7946"}, Attempts: 1}} {
		if code := exitCode("peers", joinPending(j, goldenNow), &b); code != exitFailure {
			t.Fatalf("pending join: exit %d, want %d", code, exitFailure)
		}
	}
	for _, j := range []*joinStatus{nil, {Seeds: []string{"10.0.0.1:7946"}, Attempts: 1}} {
		if err := joinPending(j, goldenNow); err != nil {
			t.Fatalf("joinPending(%+v) = %v, want nil: nothing is pending", j, err)
		}
	}
	checkGolden(t, "peers_join_pending.golden", b.Bytes())
}

// TestRunPeers_JoinPending: a node alone whose join is pending prints its
// (empty) roster, then fails with the seeds and the last error; --json
// carries the join too.
func TestRunPeers_JoinPending(t *testing.T) {
	clearClientEnv(t)
	var r peersReply
	r.Self.ReplicaID, r.Self.Name = "rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "alone"
	r.Lsnode = &lsnodeEstate{AgentsActive: i64(0), Join: goldenJoin(), Members: []peerRow{
		{Name: "alone", ReplicaID: r.Self.ReplicaID, State: "alive", Self: true},
	}}
	srv := rosterServer(t, "", map[string]any{"/sync/peers": r})
	code, out, errOut := runCLI(t, "peers", "--addr", srv.URL)
	if code != exitFailure || out != "no peer replicas; 0 agents active\n" ||
		!strings.HasPrefix(errOut, "lsnode peers: gossip join pending: 4 attempts reached none of 10.0.0.1:7946, 10.0.0.2:7946") ||
		!strings.Contains(errOut, "; last error: failed to join 10.0.0.1:7946") {
		t.Fatalf("peers: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "peers", "--addr", srv.URL, "--json")
	var got peersJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitFailure || got.Join == nil ||
		!got.Join.Pending || len(got.Join.Seeds) != 2 || !strings.Contains(errOut, "gossip join pending") {
		t.Fatalf("peers --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
}
