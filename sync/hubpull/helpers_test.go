package hubpull_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/fakehub"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// lockedBuffer is a log sink safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// pullEnv is a store, a peers.json beside it and a Puller over it,
// with its logs (debug level, JSON), metrics and a manual wall clock.
type pullEnv struct {
	t    *testing.T
	st   *store.Store
	dir  string
	reg  *prometheus.Registry
	logs *lockedBuffer
	wall *hlc.ManualClock
	p    *hubpull.Puller
}

func newPullEnv(t *testing.T, tune func(*hubpull.Config)) *pullEnv {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	e := &pullEnv{t: t, st: st, dir: dir, reg: prometheus.NewRegistry(), logs: &lockedBuffer{},
		wall: hlc.NewManualClock(time.Date(2026, 7, 2, 21, 14, 9, 0, time.UTC))}
	cfg := hubpull.DefaultConfig(filepath.Join(dir, hubpull.PeersFileName))
	cfg.Interval = 0
	cfg.Timeout = 5 * time.Second
	cfg.Logger = slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Metrics = e.reg
	cfg.Wall = e.wall
	if tune != nil {
		tune(&cfg)
	}
	if e.p, err = hubpull.NewPuller(cfg, st); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.p.Stop()
		if err := st.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return e
}

// peerEntry is one peers.json entry.
type peerEntry struct {
	Name  string `json:"name,omitempty"`
	URL   string `json:"url"`
	Token string `json:"token,omitempty"`
}

func (e *pullEnv) setPeers(peers ...peerEntry) {
	e.t.Helper()
	b, err := json.MarshalIndent(map[string]any{"peers": peers}, "", "  ")
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, hubpull.PeersFileName), b, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// round runs one round and returns the results by peer label.
func (e *pullEnv) round() map[string]hubpull.PeerResult {
	e.t.Helper()
	out := map[string]hubpull.PeerResult{}
	for _, r := range e.p.SyncOnce(context.Background()) {
		out[r.Name] = r
	}
	return out
}

func (e *pullEnv) status(name string) hubpull.PeerStatus {
	e.t.Helper()
	for _, s := range e.p.Status() {
		if s.Name == name {
			return s
		}
	}
	e.t.Fatalf("no status for %q", name)
	return hubpull.PeerStatus{}
}

// metric returns the value of a counter or gauge with the given labels
// (nil: no labels), or -1 when absent.
func (e *pullEnv) metric(name string, labels map[string]string) float64 {
	e.t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		e.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			match := len(m.GetLabel()) == len(labels)
			for _, l := range m.GetLabel() {
				match = match && labels[l.GetName()] == l.GetValue()
			}
			if match {
				if m.GetCounter() != nil {
					return m.GetCounter().GetValue()
				}
				return m.GetGauge().GetValue()
			}
		}
	}
	return -1
}

// metricsText renders every metric family, for secret scans.
func (e *pullEnv) metricsText() string {
	mfs, _ := e.reg.Gather()
	var b strings.Builder
	for _, mf := range mfs {
		fmt.Fprintln(&b, mf.String())
	}
	return b.String()
}

// hubServer serves a fake hub on loopback.
type hubServer struct {
	*fakehub.Hub
	srv  *httptest.Server
	wall *hlc.ManualClock
}

func startHub(t *testing.T, cfg fakehub.Config) *hubServer {
	t.Helper()
	wall := hlc.NewManualClock(time.Now().UTC().Truncate(time.Second).Add(-time.Hour))
	cfg.Wall = wall
	h := fakehub.New(cfg)
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return &hubServer{Hub: h, srv: srv, wall: wall}
}

// note appends a plain event on the hub.
func (h *hubServer) note(t *testing.T, body string, artifacts ...string) string {
	t.Helper()
	h.wall.Advance(time.Millisecond)
	id, err := h.Append(fakehub.Write{Type: "note", Stream: "project/x", Room: "main", FromAgent: "py@hub",
		ToAgent: "*", Body: body, Metadata: map[string]any{"n": body, "ü": []any{1, 2.5, nil}}, ArtifactIDs: artifacts})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// remote applies an event of another origin on the hub, as if pulled.
func (h *hubServer) remote(t *testing.T, origin string, seq int64, typ string, extra map[string]any) {
	t.Helper()
	ev := map[string]any{
		"id": fmt.Sprintf("evt_20260702T211409_%012x", seq*7919+int64(len(origin))), "type": typ, "stream": "project/x", "room": "main",
		"from_agent": "far@" + origin[4:10], "created_at": "2026-07-02T21:14:09Z", "origin_replica": origin,
		"origin_seq": seq, "hlc": fmt.Sprintf("1783026849000-%06x-%s", seq, origin), "body": fmt.Sprintf("%s #%d", origin, seq),
	}
	for k, v := range extra {
		ev[k] = v
	}
	if ok, err := h.ApplyRemote(ev); !ok || err != nil {
		t.Fatalf("seed %s/%d: %v %v", origin, seq, ok, err)
	}
}

// hubDicts returns every event dict the hub serves for origin, seq removed.
func hubDicts(t *testing.T, url, token, origin string) []map[string]any {
	t.Helper()
	var out []map[string]any
	after := 0.0
	for {
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/sync/ops?origin=%s&after=%d", url, origin, int64(after)), nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct{ Events []map[string]any }
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if len(page.Events) == 0 {
			return out
		}
		for _, ev := range page.Events {
			after = ev["origin_seq"].(float64)
			delete(ev, "seq")
			out = append(out, ev)
		}
	}
}

// storeDicts returns the event dicts the store holds for origin, in origin
// order, seq removed: what lsnode would serve.
func storeDicts(t *testing.T, st *store.Store, origin string) []map[string]any {
	t.Helper()
	ops, err := st.OpsAfter(context.Background(), origin, 0, 10000, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]any, len(ops))
	for i, op := range ops {
		b, err := json.Marshal(op.Event)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &out[i]); err != nil {
			t.Fatal(err)
		}
		delete(out[i], "seq")
	}
	return out
}

// sameDicts fails unless the store holds exactly the hub's events of
// origin (every field but seq).
func sameDicts(t *testing.T, hub []map[string]any, held []map[string]any, origin string) {
	t.Helper()
	if len(hub) != len(held) {
		t.Fatalf("origin %s: hub serves %d events, store holds %d", origin, len(hub), len(held))
	}
	for i := range hub {
		if !reflect.DeepEqual(hub[i], held[i]) {
			t.Fatalf("origin %s event %d differs:\n hub   %v\n store %v", origin, i, hub[i], held[i])
		}
	}
}

// countRequests counts the hub's requests whose path starts with prefix.
func countRequests(reqs []string, prefix string) int {
	n := 0
	for _, r := range reqs {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
