package httpapi

import (
	"fmt"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

func TestHealthz(t *testing.T) {
	n := htStart(t, withToken)
	r := nodetest.Get(t, n, "/healthz", "")
	if r.Status != 200 || r.Body != "ok\n" || r.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("%d %q %q", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
}

func TestStatusz(t *testing.T) {
	wall := hlc.NewManualClock(time.Date(2026, 7, 2, 21, 0, 0, 0, time.UTC))
	n := htStart(t, func(c *Options) { c.Wall = wall; c.Version = "9.9.9"; c.SSEMaxClients = 3 })
	nodetest.Append(t, n.Store(), store.AppendInput{})
	nodetest.Do(t, n, nodetest.Req{Path: "/nope", Header: map[string]string{"User-Agent": "probe/1"}})
	wall.Advance(1500 * time.Millisecond)
	m := nodetest.JSON(t, nodetest.Get(t, n, "/statusz", ""))
	srv := m["server"].(map[string]any)
	if srv["name"] != "lsnode" || srv["version"] != "9.9.9" || srv["scheme"] != "http" || srv["uptime_seconds"] != 1.5 ||
		srv["bind_host"] != "127.0.0.1" || srv["port"] != float64(n.cfg.Port) {
		t.Fatalf("server %v", srv)
	}
	if m["ok"] != true || m["replica_id"] != n.Store().ReplicaID() {
		t.Fatalf("statusz %v", m)
	}
	if lg := m["log"].(map[string]any); lg["events"] != float64(1) || lg["origins"] != float64(1) {
		t.Fatalf("log %v", lg)
	}
	if vv := m["version_vector"].(map[string]any); vv[n.Store().ReplicaID()] != float64(1) {
		t.Fatalf("version_vector %v", vv)
	}
	if cu, ok := m["catch_up"].([]any); !ok || len(cu) != 0 {
		t.Fatalf("catch_up without replication: %v", m["catch_up"])
	}
	if sse := m["sse"].(map[string]any); sse["max_clients"] != float64(3) || sse["clients"] != float64(0) {
		t.Fatalf("sse %v", sse)
	}
	// As in the hub, a request is counted when its answer goes out: the
	// statusz request itself is not in its own answer.
	req := m["requests"].(map[string]any)
	by := req["by_status"].(map[string]any)
	if req["total"] != float64(1) || by["404"] != float64(1) {
		t.Fatalf("requests %v", req)
	}
	clients := m["clients"].(map[string]any)
	recent := clients["recent"].([]any)
	if clients["active_window_seconds"] != 120.0 || len(recent) != 1 || len(clients["active"].([]any)) != 1 {
		t.Fatalf("clients %v", clients)
	}
	newest := recent[0].(map[string]any)
	if newest["user_agent"] != "probe/1" || newest["last_path"] != "/nope" || newest["last_status"] != float64(404) || len(newest["client_id"].(string)) != 16 ||
		newest["authenticated"] != false || newest["peer"] != "127.0.0.1" {
		t.Fatalf("newest client %v", newest)
	}
}

func TestRequestStats_KeepsFiftyClients(t *testing.T) {
	s := newRequestStats()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 60; i++ {
		req := httptest.NewRequest("GET", "http://localhost/statusz", nil)
		req.Header.Set("User-Agent", fmt.Sprintf("agent/%d", i))
		s.record(req, 200, false, base.Add(time.Duration(i)*time.Second))
	}
	p := s.clientsPayload(base.Add(time.Hour))
	if got := len(p[2].Value.([]any)); got != recentClientLimit {
		t.Fatalf("%d recent clients, want %d", got, recentClientLimit)
	}
	if got := len(p[1].Value.([]any)); got != 0 {
		t.Fatalf("%d active an hour later", got)
	}
}

func TestStatusz_CatchUp(t *testing.T) {
	n := htStart(t, func(c *Options) {
		c.Replication = catchingUp{{Origin: "rep_b", Held: 250, Target: 1000, BehindOps: 750, BehindSeconds: 1.23456, OpsPerSecond: 99.6}}
	})
	rows := nodetest.JSON(t, nodetest.Get(t, n, "/statusz", ""))["catch_up"].([]any)
	if len(rows) != 1 {
		t.Fatalf("catch_up %v", rows)
	}
	want := map[string]any{"origin": "rep_b", "held": 250.0, "target": 1000.0, "behind_ops": 750.0,
		"behind_seconds": 1.235, "ops_per_second": 100.0}
	if got := rows[0].(map[string]any); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("catch_up row %v, want %v", got, want)
	}
}

// TestReadyz_GaugeNeedsNoProbe: lsnode_node_ready, which the
// LsnodeNotReady alert watches, reports the node's configured thresholds at
// each scrape, with no /readyz call before it; a caller's own thresholds
// (any client: /readyz needs no token) answer that caller only.
func TestReadyz_GaugeNeedsNoProbe(t *testing.T) {
	n := htStart(t, nil)
	if got := nodetest.Metric(t, n.reg, "lsnode_node_ready"); got != 1 {
		t.Fatalf("gauge %v before any /readyz, want 1", got)
	}
	if r := nodetest.Get(t, n, "/readyz?min_alive_peers=5", ""); r.Status != 503 {
		t.Fatalf("stricter override: %d %s", r.Status, r.Body)
	}
	if got := nodetest.Metric(t, n.reg, "lsnode_node_ready"); got != 1 {
		t.Fatalf("gauge %v after an override check, want 1 (the node meets its own thresholds)", got)
	}
	strict := htStart(t, func(c *Options) { c.Readiness.MinAlivePeers = 1 })
	if got := nodetest.Metric(t, strict.reg, "lsnode_node_ready"); got != 0 {
		t.Fatalf("gauge %v on a node without the peers it requires, want 0", got)
	}
}

// TestStatusz_WholeSecondTimes: Python's isoformat() leaves the fraction
// out when the microseconds are zero, in started_at and last_seen alike.
func TestStatusz_WholeSecondTimes(t *testing.T) {
	start := time.Date(2026, 7, 2, 21, 0, 0, 0, time.UTC)
	n := htStart(t, func(c *Options) { c.Wall = hlc.NewManualClock(start) })
	nodetest.Get(t, n, "/healthz", "")
	m := nodetest.JSON(t, nodetest.Get(t, n, "/statusz", ""))
	want := start.Local().Format("2006-01-02T15:04:05")
	if got := m["server"].(map[string]any)["started_at"]; got != want {
		t.Errorf("started_at %v, want %s", got, want)
	}
	if got := m["clients"].(map[string]any)["recent"].([]any)[0].(map[string]any)["last_seen"]; got != want {
		t.Errorf("last_seen %v, want %s", got, want)
	}
}

// catchingUp is replication with no session, catching up on its origins.
type catchingUp []OriginProgress

func (catchingUp) ReadyPeers() []ReadyPeer     { return nil }
func (c catchingUp) CatchUp() []OriginProgress { return c }

// TestStatusz_WaitForCycles: /statusz lists the first five wait-for
// cycles in wait order with the oldest ask of each wait, counts them and
// says more may exist; a log without the view shows null.
func TestStatusz_WaitForCycles(t *testing.T) {
	n := htStart(t, nil)
	cycles := func() map[string]any {
		t.Helper()
		part, _ := nodetest.JSON(t, nodetest.Get(t, n, "/statusz", ""))["wait_for_cycles"].(map[string]any)
		return part
	}
	if got := cycles(); got["count"] != 0.0 || got["truncated"] != false || len(got["cycles"].([]any)) != 0 {
		t.Fatalf("an empty log: %v", got)
	}
	ask := func(from, to string) string {
		return nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: from, ToAgent: to}).ID
	}
	ab, bc, ca := ask("a", "b"), ask("b", "c"), ask("c", "a")
	ask("a", "b") // a second ask of a wait: the first stays the oldest
	want := map[string]any{"count": 1.0, "truncated": false, "cycles": []any{
		map[string]any{"agents": []any{"a", "b", "c"}, "asks": []any{ab, bc, ca}},
	}}
	if got := cycles(); !reflect.DeepEqual(got, want) {
		t.Fatalf("one cycle: %v; want %v", got, want)
	}
	for i := range 6 { // six more cycles, of two agents each: seven in all
		x, y := fmt.Sprintf("p%d", i), fmt.Sprintf("q%d", i)
		ask(x, y)
		ask(y, x)
	}
	got := cycles()
	listed, _ := got["cycles"].([]any)
	if got["count"] != 5.0 || got["truncated"] != true || len(listed) != 5 {
		t.Fatalf("seven cycles: %v; want the first five and truncated", got)
	}
	for i, c := range listed { // the shortest first, by name
		if agents := c.(map[string]any)["agents"]; !reflect.DeepEqual(agents, []any{fmt.Sprintf("p%d", i), fmt.Sprintf("q%d", i)}) {
			t.Errorf("cycle %d: %v", i, agents)
		}
	}

	plain := htStart(t, func(o *Options) { o.Store = plainLog{nodetest.OpenStore(t)} })
	if m := nodetest.JSON(t, nodetest.Get(t, plain, "/statusz", "")); m["wait_for_cycles"] != nil {
		t.Fatalf("a log without the view: %v", m["wait_for_cycles"])
	} else if _, ok := m["wait_for_cycles"]; !ok {
		t.Fatal("a log without the view: no wait_for_cycles member")
	}
}
