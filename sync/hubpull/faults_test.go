package hubpull_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/sync/fakehub"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// badPeers starts one server per way an HTTP peer can fail and returns
// their peers.json entries, each with its own token.
func badPeers(t *testing.T) []peerEntry {
	t.Helper()
	serve := func(h http.HandlerFunc) string {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	garbage := serve(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>this is not a hub</html>")
	})
	boom := serve(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error": "database is locked"}`, http.StatusInternalServerError)
	})
	slowDone := make(chan struct{})
	slow := serve(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-slowDone:
		}
	})
	t.Cleanup(func() { close(slowDone) })
	// echo repeats the Authorization header back in its 400 text, as a
	// careless proxy might.
	echo := serve(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sync/version_vector" {
			fmt.Fprintf(w, `{"replica_id": "rep_%s", "version_vector": {"%s": 3}}`, strings.Repeat("e", 32), thirdOrigin)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error": "refused header %s"}`, r.Header.Get("Authorization"))
	})
	unauth := startHub(t, fakehub.Config{Token: "the-right-token", Seed: 21})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	return []peerEntry{
		{Name: "garbage", URL: garbage, Token: "tok-garbage-0001"},
		{Name: "unauth", URL: unauth.srv.URL, Token: "tok-unauth-0002"},
		{Name: "boom", URL: boom, Token: "tok-boom-0003"},
		{Name: "slow", URL: slow, Token: "tok-slow-0004"},
		{Name: "dead", URL: dead, Token: "tok-dead-0005"},
		{Name: "echo", URL: echo, Token: "tok-echo-0006"},
	}
}

// TestHTTPPull_BadPeersDoNotAffectGoodOne: in one round, peers answering
// garbage, 401, 500, nothing (timeout), refusing connections or echoing
// the token each fail on their own, and the good peer is pulled in full.
// No token appears in any result, status, log line or metric.
func TestHTTPPull_BadPeersDoNotAffectGoodOne(t *testing.T) {
	good := startHub(t, fakehub.Config{Token: "tok-good-0007", Seed: 22})
	for i := 0; i < 5; i++ {
		good.note(t, fmt.Sprint(i))
	}
	e := newPullEnv(t, func(c *hubpull.Config) { c.Timeout = 300 * time.Millisecond; c.Parallel = 2 })
	bad := badPeers(t)
	entries := append(bad[:3:3], peerEntry{Name: "good", URL: good.srv.URL, Token: "tok-good-0007"})
	entries = append(entries, bad[3:]...)
	e.setPeers(entries...)

	results := e.round()
	if r := results["good"]; r.Result() != "ok" || r.PulledEvents != 5 {
		t.Fatalf("good peer: %+v %s", r, r.Error())
	}
	kinds := map[string]error{
		"garbage": hubpull.ErrPeerProtocol, "unauth": hubpull.ErrPeerStatus, "boom": hubpull.ErrPeerStatus,
		"slow": hubpull.ErrPeerUnreachable, "dead": hubpull.ErrPeerUnreachable,
	}
	for name, kind := range kinds {
		r := results[name]
		if r.Result() != "error" || !errors.Is(r.Err, kind) {
			t.Errorf("%s: %v, want %v", name, r.Err, kind)
		}
		st := e.status(name)
		if st.Reachable || st.LastError == "" || st.LastErrorAt != e.wall.Now() || !st.Synced {
			t.Errorf("%s status %+v", name, st)
		}
		if e.metric("lsnode_sync_http_peer_up", map[string]string{"peer": name}) != 0 {
			t.Errorf("%s reported up", name)
		}
	}
	var se *hubpull.StatusError
	if !errors.As(results["unauth"].Err, &se) || se.Code != 401 ||
		results["unauth"].Err.Error() != bad[1].URL+"/sync/version_vector: HTTP Error 401: Unauthorized" {
		t.Errorf("unauth error %q", results["unauth"].Err)
	}
	if got := results["slow"].Err.Error(); got != bad[3].URL+"/sync/version_vector: timed out" {
		t.Errorf("slow error %q", got)
	}
	if r := results["echo"]; r.Result() != "partial" || !strings.Contains(r.Error(), "refused header Bearer [redacted]") {
		t.Errorf("echo: %s", r.Error())
	}
	if e.metric("lsnode_sync_http_pulls_total", map[string]string{"result": "error"}) != 5 ||
		e.metric("lsnode_sync_http_pulls_total", map[string]string{"result": "ok"}) != 1 ||
		e.metric("lsnode_sync_http_peer_up", map[string]string{"peer": "good"}) != 1 {
		t.Errorf("metrics:\n%s", e.metricsText())
	}

	// A second round fails the same way; it must not stop the good peer
	// either, and the failures are logged once (debug afterwards).
	good.note(t, "more")
	if r := e.round()["good"]; r.PulledEvents != 1 {
		t.Fatalf("second round, good peer: %+v", r)
	}
	if n := strings.Count(e.logs.String(), `"msg":"http sync with peer failed"`); n != 5 {
		t.Errorf("%d failure warnings over two rounds, want 5 (one per bad peer)", n)
	}

	var shown strings.Builder
	for _, r := range e.p.SyncOnce(t.Context()) {
		fmt.Fprintf(&shown, "%+v %v %s\n", r, r.Err, r.Error())
	}
	fmt.Fprintf(&shown, "%+v\n%s\n%s\n", e.p.Status(), e.logs.String(), e.metricsText())
	raw, _ := os.ReadFile(filepath.Join(e.dir, hubpull.PeersFileName))
	for _, p := range entries {
		if !strings.Contains(string(raw), p.Token) {
			t.Fatalf("test setup: token %s not in peers.json", p.Token)
		}
		if strings.Contains(shown.String(), p.Token) {
			t.Errorf("token of %s shown:\n%s", p.Name, shown.String())
		}
	}
}

// TestHTTPPull_PeersFileErrors: a malformed peers.json skips rounds
// (statuses kept, one error logged, metric 0) until it is fixed; removed
// peers are forgotten with their metric series; absent means no peers.
func TestHTTPPull_PeersFileErrors(t *testing.T) {
	h := startHub(t, fakehub.Config{Seed: 23})
	h.note(t, "x")
	e := newPullEnv(t, nil)
	if got := e.p.SyncOnce(t.Context()); len(got) != 0 || e.p.ConfigError() != "" {
		t.Fatalf("absent file: %v %q", got, e.p.ConfigError())
	}
	e.setPeers(peerEntry{Name: "py", URL: h.srv.URL})
	e.round()
	path := filepath.Join(e.dir, hubpull.PeersFileName)
	if err := os.WriteFile(path, []byte(`{"peers": [{"name": "py"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := e.p.SyncOnce(t.Context()); got != nil {
			t.Fatalf("round ran with a malformed file: %v", got)
		}
	}
	if e.p.ConfigError() != path+": every peer needs at least a 'url'" {
		t.Fatalf("config error %q", e.p.ConfigError())
	}
	if st := e.status("py"); !st.Reachable {
		t.Fatalf("status lost: %+v", st)
	}
	if n := strings.Count(e.logs.String(), "peers file unusable"); n != 1 || e.metric("lsnode_sync_http_peers_file_ok", nil) != 0 {
		t.Fatalf("%d error lines, metric %v", n, e.metric("lsnode_sync_http_peers_file_ok", nil))
	}
	e.setPeers(peerEntry{Name: "other", URL: h.srv.URL})
	e.round()
	if e.p.ConfigError() != "" || len(e.p.Status()) != 1 || e.metric("lsnode_sync_http_peer_up", map[string]string{"peer": "py"}) != -1 ||
		e.metric("lsnode_sync_http_peers_file_ok", nil) != 1 {
		t.Fatalf("after the fix: %q %+v\n%s", e.p.ConfigError(), e.p.Status(), e.metricsText())
	}
	e.setPeers(peerEntry{URL: h.srv.URL}, peerEntry{URL: h.srv.URL})
	e.round()
	if st := e.p.Status(); len(st) != 2 || st[0].Name != h.srv.URL || st[1].Name != h.srv.URL+"#2" {
		t.Fatalf("duplicate labels: %+v", st)
	}
}
