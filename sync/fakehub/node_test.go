package fakehub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/fakehub"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// These tests check lsnode's serving routes (node/sync_routes.go) from the
// Python side: a fake hub pulls a real node with the Python engine and
// must end up holding exactly what the node holds, as it would from a
// Python hub; and the node's answers to the same requests must match a
// Python hub's byte for byte where the hub's are fixed.

const nodeToken = "node-bearer-token"

var seqRE = regexp.MustCompile(`"seq": [0-9]+`)

func startNode(t *testing.T) *node.Node {
	t.Helper()
	cfg := node.DefaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.Auth.Token = nodeToken
	cfg.Registry = prometheus.NewRegistry()
	n, err := node.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := n.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return n
}

// fillNode writes through the node's store what agents write: plain and
// addressed events with topics and metadata, an artifact, a patch, an
// ack, an idempotent write (which carries lsnode's metadata extension).
func fillNode(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	art, err := st.PutArtifact(ctx, store.ArtifactInput{Kind: "log", Content: "build log ✓\n", CreatedBy: "ci@node"})
	if err != nil {
		t.Fatal(err)
	}
	first, err := st.Append(ctx, store.AppendInput{Type: "task.request", Stream: "project/x", Room: "main", Topic: "t1",
		FromAgent: "alice@node", ToAgent: "bob@node", CorrelationID: "c-1", Status: "open", Body: "please ✓",
		Metadata: json.RawMessage(`{"z": 1, "a": {"nested": [1.5, "é", null]}}`), ArtifactIDs: []string{art.Artifact.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PatchSubmit(ctx, store.PatchInput{Content: "--- a\n+++ b\n", FromAgent: "bob@node", Stream: "project/x",
		Branch: "main", BaseCommit: "abc123", CorrelationID: "c-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Ack(ctx, store.AckInput{EventID: first.Event.ID, FromAgent: "bob@node", Status: "applied"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, store.AppendInput{Type: "note", Stream: "project/x", Room: "main", FromAgent: "carol@node",
		Body: "idempotent", IdempotencyKey: "k-1"}); err != nil {
		t.Fatal(err)
	}
}

// seedHub fills a Python hub with gapped, legacy and backfilled origins.
func seedHub(t *testing.T, h *fakehub.Hub, wall *hlc.ManualClock) {
	t.Helper()
	h.ImportPreReplication([]fakehub.Legacy{
		{Write: fakehub.Write{Type: "note", Stream: "old", Room: "main", FromAgent: "pre@hub", Body: "pre"}, CreatedAt: "2025-05-05T05:05:05Z"},
	})
	legacy := "rep_a1a1a1a1a1a1"
	for _, seq := range []int64{3, 4, 10} {
		if ok, err := h.ApplyRemote(map[string]any{"id": fmt.Sprintf("evt_20260101T000000_%012d", seq), "type": "note",
			"stream": "s", "room": "r", "from_agent": "old@" + legacy, "created_at": "2026-01-01T00:00:00Z",
			"origin_replica": legacy, "origin_seq": seq, "hlc": fmt.Sprintf("1767225600000-%06x-%s", seq, legacy),
			"metadata": map[string]any{"seq": seq}}); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	art, _ := h.PutArtifact("patch", "diff\n", "py@hub")
	for i := 0; i < 3; i++ {
		wall.Advance(time.Second)
		var arts []string
		if i == 1 {
			arts = []string{art}
		}
		if _, err := h.Append(fakehub.Write{Type: "note", Stream: "s", Room: "r", FromAgent: "py@hub", Body: fmt.Sprint("py é✓😀 ", i),
			Metadata: map[string]any{"f": 1.0, "e": 1e-05, "big": 1e16, "s": "\u2028<&>"}, ArtifactIDs: arts}); err != nil {
			t.Fatal(err)
		}
	}
}

// nodeDicts GETs every event dict the node serves for origin, seq removed.
func nodeDicts(t *testing.T, base, token, origin string) []map[string]any {
	t.Helper()
	var out []map[string]any
	var after int64
	for {
		var page struct{ Events []map[string]any }
		getJSON(t, fmt.Sprintf("%s/sync/ops?origin=%s&after=%d", base, origin, after), token, &page)
		if len(page.Events) == 0 {
			return out
		}
		for _, ev := range page.Events {
			after = int64(ev["origin_seq"].(float64))
			delete(ev, "seq")
			out = append(out, ev)
		}
	}
}

func getJSON(t *testing.T, url, token string, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// TestNodeServesPythonPuller: a Python hub pulls an lsnode node that
// holds its own ops and ops it pulled from another Python hub (gapped,
// legacy, backfilled origins); the puller ends with exactly what the node
// serves, and the relayed origins exactly as their hub serves them.
func TestNodeServesPythonPuller(t *testing.T) {
	n := startNode(t)
	fillNode(t, n.Store())

	srcWall := hlc.NewManualClock(time.Now().UTC().Truncate(time.Second).Add(-time.Hour))
	src := fakehub.New(fakehub.Config{Wall: srcWall, Seed: 51, Token: "src-token"})
	seedHub(t, src, srcWall)
	srcSrv := httptest.NewServer(src.Handler())
	t.Cleanup(srcSrv.Close)
	cfg := hubpull.DefaultConfig(filepath.Join(t.TempDir(), hubpull.PeersFileName))
	cfg.Interval = 0
	cfg.Logger = slog.New(slog.DiscardHandler)
	writeFile(t, cfg.PeersFile, fmt.Sprintf(`{"peers": [{"name": "src", "url": %q, "token": "src-token"}]}`, srcSrv.URL))
	p, err := hubpull.NewPuller(cfg, n.Store())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	if r := p.SyncOnce(context.Background()); len(r) != 1 || r[0].Result() != "ok" {
		t.Fatalf("node pulling the source hub: %+v", r)
	}

	dst := fakehub.New(fakehub.Config{Seed: 52})
	stats, err := dst.SyncWithPeer(context.Background(), http.DefaultClient, n.URL(), nodeToken)
	if err != nil {
		t.Fatal(err)
	}
	nodeVV := n.Store().VersionVector()
	if got := dst.VersionVector(); !maps.Equal(got, nodeVV) {
		t.Fatalf("python puller holds %v, node %v", got, nodeVV)
	}
	total := 0
	dstSrv := httptest.NewServer(dst.Handler())
	t.Cleanup(dstSrv.Close)
	for origin := range nodeVV {
		fromNode := nodeDicts(t, n.URL(), nodeToken, origin)
		total += len(fromNode)
		held := nodeDicts(t, dstSrv.URL, "", origin)
		if !reflect.DeepEqual(fromNode, held) {
			t.Fatalf("origin %s: the python puller stored\n%v\nthe node served\n%v", origin, held, fromNode)
		}
		if srcVV := src.VersionVector(); srcVV[origin] > 0 {
			if fromSrc := nodeDicts(t, srcSrv.URL, "src-token", origin); !reflect.DeepEqual(fromSrc, fromNode) {
				t.Fatalf("origin %s: the node relays\n%v\nits hub serves\n%v", origin, fromNode, fromSrc)
			}
			// Byte for byte, but for the local seq.
			_, _, nodePage := rawGet(t, n.URL()+"/sync/ops?origin="+origin, "Bearer "+nodeToken)
			_, _, srcPage := rawGet(t, srcSrv.URL+"/sync/ops?origin="+origin, "Bearer src-token")
			if a, b := seqRE.ReplaceAllString(nodePage, `"seq": N`), seqRE.ReplaceAllString(srcPage, `"seq": N`); a != b {
				t.Fatalf("origin %s page:\nnode %s\nhub  %s", origin, a, b)
			}
		}
	}
	if stats.PulledEvents != total || stats.PulledArtifacts != 3 || stats.PeerReplica != n.Store().ReplicaID() {
		t.Fatalf("stats %+v, node holds %d events", stats, total)
	}
	for _, id := range artifactIDs(t, n.Store()) {
		var a, b struct{ Artifact map[string]any }
		getJSON(t, n.URL()+"/sync/artifact?id="+id, nodeToken, &a)
		getJSON(t, dstSrv.URL+"/sync/artifact?id="+id, "", &b)
		if !reflect.DeepEqual(a, b) || a.Artifact["sha256"] == "" {
			t.Fatalf("artifact %s: node %v, python puller %v", id, a, b)
		}
	}
	again, err := dst.SyncWithPeer(context.Background(), http.DefaultClient, n.URL(), nodeToken)
	if err != nil || again.PulledEvents != 0 || again.Requests != 1 {
		t.Fatalf("second pull: %+v %v", again, err)
	}
}

func artifactIDs(t *testing.T, st *store.Store) []string {
	t.Helper()
	var ids []string
	for origin := range st.VersionVector() {
		ops, err := st.OpsAfter(context.Background(), origin, 0, 10000, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			ids = append(ids, op.Event.ArtifactIDs...)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// TestNodeExtensionSurvivesPythonRelay: an op lsnode A wrote with an
// idempotency key (lsnode's _lsnode metadata extension) reaches lsnode B
// through a Python hub unchanged.
func TestNodeExtensionSurvivesPythonRelay(t *testing.T) {
	a, b := startNode(t), startNode(t)
	fillNode(t, a.Store())
	hub := fakehub.New(fakehub.Config{Seed: 53})
	if _, err := hub.SyncWithPeer(context.Background(), http.DefaultClient, a.URL(), nodeToken); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(hub.Handler())
	t.Cleanup(srv.Close)
	cfg := hubpull.DefaultConfig(filepath.Join(t.TempDir(), hubpull.PeersFileName))
	cfg.Interval = 0
	writeFile(t, cfg.PeersFile, fmt.Sprintf(`{"peers": [{"url": %q}]}`, srv.URL))
	p, err := hubpull.NewPuller(cfg, b.Store())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	if r := p.SyncOnce(context.Background()); r[0].Result() != "ok" {
		t.Fatalf("b pulling the hub: %s", r[0].Error())
	}
	origin := a.Store().ReplicaID()
	want, got := nodeDicts(t, a.URL(), nodeToken, origin), nodeDicts(t, b.URL(), nodeToken, origin)
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("through the hub:\n%v\nwant\n%v", got, want)
	}
	if !strings.Contains(fmt.Sprint(got), "_lsnode") {
		t.Fatalf("no op carried lsnode's extension: %v", got)
	}
}

// TestNodeAnswersLikePythonHub sends the same requests to a node and to a
// fake hub and compares status, content type and body (with replica ids
// and artifact ids made equal).
func TestNodeAnswersLikePythonHub(t *testing.T) {
	n := startNode(t)
	hub := fakehub.New(fakehub.Config{Token: nodeToken, Seed: 54})
	srv := httptest.NewServer(hub.Handler())
	t.Cleanup(srv.Close)
	self, hubSelf := n.Store().ReplicaID(), hub.ReplicaID()
	cases := []struct{ path, auth string }{
		{"/sync/version_vector", "Bearer wrong"},
		{"/sync/version_vector", ""},
		{"/sync/nope", "Bearer " + nodeToken},
		{"/sync/ops", "Bearer " + nodeToken},
		{"/sync/ops?origin=%20", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&after=abc", "Bearer " + nodeToken},
		{"/sync/ops?origin=&after=abc", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&after=-1", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&limit=0", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&limit=x%27", "Bearer " + nodeToken},
		{"/sync/ops?origin=%20&after=-1&limit=0", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&after=+7&limit=99999", "Bearer " + nodeToken},
		{"/sync/ops?origin=a%01b", "Bearer " + nodeToken},
		{"/sync/artifact?id=art_nope", "Bearer " + nodeToken},
		{"/sync/artifact", "Bearer " + nodeToken},
		{"/sync/artifact?id=%20", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&after=1_000&limit=%205%20", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&after=1__0", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&limit=true", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&origin=", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&after=99999999999999999999999", "Bearer " + nodeToken},
		{"/sync/ops?origin=%E2%9C%93+x&after=0", "Bearer " + nodeToken},
		{"/sync/ops?origin=SELF&after=-0", "Bearer " + nodeToken},
		{"/sync/ops?origin=" + strings.Repeat("x", 257), "Bearer " + nodeToken},
		{"/sync/artifact?id=art_x&id=", "Bearer " + nodeToken},
	}
	// Known deviations of node/sync_routes.go, reported, not failed: a
	// malformed %-escape is kept literally by Python's parse_qsl (then
	// refused by int()), while the node drops the whole pair.
	// A ";" is no separator for Python (3.10+), so the whole rest is the
	// origin; Go's url.ParseQuery drops the pair.
	known := map[string]bool{"/sync/ops?origin=SELF&after=%ZZ": true, "/sync/ops?origin=SELF;after=5": true}
	for path := range known {
		cases = append(cases, struct{ path, auth string }{path, "Bearer " + nodeToken})
	}
	for _, c := range cases {
		ns, nt, nb := rawGet(t, n.URL()+strings.ReplaceAll(c.path, "SELF", self), c.auth)
		hs, ht, hb := rawGet(t, srv.URL+strings.ReplaceAll(c.path, "SELF", hubSelf), c.auth)
		nb = strings.ReplaceAll(nb, self, "SELF")
		hb = strings.ReplaceAll(hb, hubSelf, "SELF")
		switch same := ns == hs && nt == ht && nb == hb; {
		case known[c.path] && same:
			t.Logf("known deviation fixed: GET %s", c.path)
		case known[c.path]:
			t.Logf("known deviation: GET %s: node %d %q, python hub %d %q", c.path, ns, nb, hs, hb)
		case !same:
			t.Errorf("GET %s (%q):\n node %d %s %q\n hub  %d %s %q", c.path, c.auth, ns, nt, nb, hs, ht, hb)
		}
	}
}

func rawGet(t *testing.T, url, auth string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// TestNodeEventKeyOrder: the node serves event dicts with the hub's key
// order (docs/compatibility.md#event-and-artifact-records), which some Python consumers print as is.
func TestNodeEventKeyOrder(t *testing.T) {
	n := startNode(t)
	fillNode(t, n.Store())
	hub := fakehub.New(fakehub.Config{Seed: 55})
	if _, err := hub.Append(fakehub.Write{Type: "note", Stream: "s", Room: "r", FromAgent: "a"}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(hub.Handler())
	t.Cleanup(srv.Close)
	_, _, nb := rawGet(t, n.URL()+"/sync/ops?origin="+n.Store().ReplicaID(), "Bearer "+nodeToken)
	_, _, hb := rawGet(t, srv.URL+"/sync/ops?origin="+hub.ReplicaID(), "")
	nk, hk := firstEventKeys(t, nb), firstEventKeys(t, hb)
	if !slices.Equal(nk, hk) {
		t.Fatalf("node key order %v\nhub key order  %v", nk, hk)
	}
}

// firstEventKeys returns the keys of the first event of an ops page, in
// the order written.
func firstEventKeys(t *testing.T, page string) []string {
	t.Helper()
	var p struct{ Events []json.RawMessage }
	if err := json.Unmarshal([]byte(page), &p); err != nil || len(p.Events) == 0 {
		t.Fatalf("page %s: %v", page, err)
	}
	dec := json.NewDecoder(bytes.NewReader(p.Events[0]))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 {
				keys = append(keys, v)
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return keys
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
