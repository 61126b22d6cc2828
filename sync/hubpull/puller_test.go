package hubpull_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/store"
	lssync "github.com/lsnode/lsnode/sync"
	"github.com/lsnode/lsnode/sync/fakehub"
	"github.com/lsnode/lsnode/sync/hubpull"
)

// Origins a Python hub carries besides its own.
const (
	legacyOrigin = "rep_0a1b2c3d4e5f"                     // a 12-hex replica id from an older hub
	thirdOrigin  = "rep_7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c" // a 32-hex origin relayed by the hub
)

// seedPythonHub fills a hub with what real Python hubs hold: events from
// a pre-replication file (backfilled), its own events numbered by the
// shared rowid (gaps), a legacy 12-hex origin with gapped numbering, a
// third-party origin long enough to need two pages, and artifacts of both
// its own and a relayed origin.
func seedPythonHub(t *testing.T, h *hubServer) {
	t.Helper()
	h.ImportPreReplication([]fakehub.Legacy{
		{Write: fakehub.Write{Type: "task.request", Stream: "old", Room: "main", FromAgent: "before@rfc004", ToAgent: "bob", Body: "pre 1"}, CreatedAt: "2025-03-01T10:00:00Z"},
		{Write: fakehub.Write{Type: "note", Stream: "old", Room: "main", FromAgent: "before@rfc004", Body: "pre 2", Metadata: map[string]any{"k": "v"}}, CreatedAt: "2025-03-01T10:00:00Z"},
		{Write: fakehub.Write{Type: "note", Stream: "old", Room: "main", FromAgent: "before@rfc004", Body: "pre 3"}, CreatedAt: "2025-03-02T11:30:00Z"},
	})
	art, err := h.PutArtifact("patch", "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n", "py@hub")
	if err != nil {
		t.Fatal(err)
	}
	h.note(t, "with a patch", art)
	for _, seq := range []int64{2, 5, 9} {
		h.remote(t, legacyOrigin, seq, "task.request", nil)
	}
	h.note(t, "after legacy 1")
	h.note(t, "after legacy 2 — ünïcödé")
	for seq := int64(1); seq <= 620; seq++ {
		h.remote(t, thirdOrigin, seq, "note", nil)
	}
	relayed := map[string]any{"id": "art_20260702T211409_00000000abcd", "kind": "log", "content": "relayed log\n",
		"sha256": "", "created_by": "far@7c7c7c", "created_at": "2026-07-02T21:14:09Z", "origin_replica": thirdOrigin}
	relayed["sha256"] = sha256Hex(relayed["content"].(string))
	if ok, err := h.ApplyRemoteArtifact(relayed); !ok || err != nil {
		t.Fatal(ok, err)
	}
	h.remote(t, thirdOrigin, 621, "patch.ready", map[string]any{"artifact_ids": []any{relayed["id"]}})
	h.note(t, "last")
}

// TestHTTPPull_PythonHub pulls everything a Python hub holds and checks
// that the store holds exactly what the hub serves, field for field.
func TestHTTPPull_PythonHub(t *testing.T) {
	h := startHub(t, fakehub.Config{Token: "hub-token-1", Seed: 11})
	seedPythonHub(t, h)
	e := newPullEnv(t, nil)
	e.setPeers(peerEntry{Name: "windows", URL: h.srv.URL + "/", Token: "hub-token-1"})

	res := e.round()["windows"]
	if res.Err != nil || len(res.OriginErrs) > 0 {
		t.Fatalf("round: %v", res.Error())
	}
	reqs := h.Requests()
	hubVV := h.VersionVector()
	if got := e.st.VersionVector(); !maps.Equal(got, hubVV) {
		t.Fatalf("store vector %v, hub vector %v", got, hubVV)
	}
	if hubVV[h.ReplicaID()] != 631 || hubVV[legacyOrigin] != 9 {
		t.Fatalf("seed changed: hub vector %v", hubVV) // own origin 1,2,3,4,8,9,631: gapped
	}
	for origin := range hubVV {
		sameDicts(t, hubDicts(t, h.srv.URL, "hub-token-1", origin), storeDicts(t, e.st, origin), origin)
	}
	if res.PulledEvents != 3+1+3+2+621+1 || res.PulledArtifacts != 2 || res.Quarantined != 0 || res.Deferred != 0 {
		t.Fatalf("result %+v", res)
	}
	if res.PerOrigin[legacyOrigin] != 3 || res.PerOrigin[thirdOrigin] != 621 || res.ReplicaID != h.ReplicaID() {
		t.Fatalf("result %+v", res)
	}
	for _, id := range []string{"art_20260702T211409_00000000abcd"} {
		a, err := e.st.GetArtifact(context.Background(), id)
		if err != nil || a.SHA256 != sha256Hex("relayed log\n") || a.OriginReplica != thirdOrigin {
			t.Fatalf("artifact %s: %+v %v", id, a, err)
		}
	}
	// Requests: the vector, one page per origin but two for the 621-op
	// origin (500 + 121), one artifact each.
	if n := countRequests(reqs, "/sync/ops"); n != 4 {
		t.Errorf("%d op pages, want 4: %v", n, reqs)
	}
	if n := countRequests(reqs, "/sync/artifact"); n != 2 {
		t.Errorf("%d artifact fetches, want 2", n)
	}
	for _, r := range reqs {
		if strings.HasPrefix(r, "/sync/ops") && !strings.Contains(r, "&limit=500") {
			t.Errorf("page request %s does not ask for 500", r)
		}
	}

	st := e.status("windows")
	if !st.Reachable || st.LastError != "" || st.ReplicaID != h.ReplicaID() || st.LastPulledEvents != int64(res.PulledEvents) ||
		st.LastSuccessAt != e.wall.Now() || st.LagOps != 0 || !maps.Equal(st.RemoteVersionVector, hubVV) || len(st.Profile) == 0 {
		t.Fatalf("status %+v", st)
	}
	if e.metric("lsnode_sync_http_pulls_total", map[string]string{"result": "ok"}) != 1 ||
		e.metric("lsnode_sync_http_peer_up", map[string]string{"peer": "windows"}) != 1 ||
		e.metric("lsnode_sync_http_ops_total", map[string]string{"result": "applied"}) != float64(res.PulledEvents) {
		t.Fatalf("metrics:\n%s", e.metricsText())
	}

	// The next round asks for the vector only.
	before := len(h.Requests())
	res = e.round()["windows"]
	if res.PulledEvents != 0 || res.Err != nil || len(h.Requests()) != before+1 {
		t.Fatalf("idle round: %+v, %d requests", res, len(h.Requests())-before)
	}
}

// TestHTTPPull_ContinuesGappedOrigin: with part of a gapped origin held,
// the next round chains its first op's PrevSeq to the held top.
func TestHTTPPull_ContinuesGappedOrigin(t *testing.T) {
	h := startHub(t, fakehub.Config{ReplicaID: "rep_00112233aabb", Seed: 12})
	e := newPullEnv(t, nil)
	e.setPeers(peerEntry{URL: h.srv.URL})
	h.note(t, "1")
	h.remote(t, thirdOrigin, 1, "note", nil)
	h.note(t, "3")
	e.round()
	h.remote(t, thirdOrigin, 2, "note", nil)
	h.remote(t, thirdOrigin, 3, "note", nil)
	h.note(t, "6")
	h.note(t, "7")
	res := e.round()[h.srv.URL]
	if res.Err != nil || res.PerOrigin["rep_00112233aabb"] != 2 || res.PerOrigin[thirdOrigin] != 2 {
		t.Fatalf("second round %+v: %s", res, res.Error())
	}
	if vv := e.st.VersionVector(); vv["rep_00112233aabb"] != 7 || vv[thirdOrigin] != 3 {
		t.Fatalf("vector %v", vv)
	}
	var seqs []int64
	ops, _ := e.st.OpsAfter(context.Background(), "rep_00112233aabb", 0, 100, 0)
	for _, op := range ops {
		seqs = append(seqs, op.Event.OriginSeq)
	}
	if !slices.Equal(seqs, []int64{1, 3, 6, 7}) {
		t.Fatalf("held origin_seqs %v, want the hub's gapped 1 3 6 7", seqs)
	}
}

// TestHTTPPull_MalformedOpsQuarantined: ops a Python hub stores but
// lsnode refuses (an invalid type, a missing hlc) are quarantined and the
// origin moves past them; nothing wedges.
func TestHTTPPull_MalformedOpsQuarantined(t *testing.T) {
	h := startHub(t, fakehub.Config{Seed: 13})
	h.remote(t, thirdOrigin, 1, "note", nil)
	h.remote(t, thirdOrigin, 2, "Task.Request", nil) // the hub does not check types on apply
	if _, err := h.InsertRaw(map[string]any{"id": "evt_20260702T211409_0000000000aa", "type": "note", "stream": "s",
		"room": "r", "from_agent": "x", "created_at": "2026-07-02T21:14:09Z", "origin_replica": thirdOrigin,
		"origin_seq": 4}); err != nil { // no hlc
		t.Fatal(err)
	}
	h.remote(t, thirdOrigin, 7, "note", nil)
	e := newPullEnv(t, nil)
	e.setPeers(peerEntry{Name: "py", URL: h.srv.URL})
	res := e.round()["py"]
	if res.Err != nil || len(res.OriginErrs) != 0 || res.PulledEvents != 2 || res.Quarantined != 2 {
		t.Fatalf("round %+v: %s", res, res.Error())
	}
	if top := e.st.VersionVector()[thirdOrigin]; top != 7 {
		t.Fatalf("origin top %d, want 7 (past the quarantined ops)", top)
	}
	q, err := e.st.Quarantine(context.Background(), 10)
	if err != nil || len(q) != 2 {
		t.Fatalf("quarantine %+v %v", q, err)
	}
	var details []string
	for _, entry := range q {
		details = append(details, fmt.Sprintf("%d:%s:%s", entry.OriginSeq, entry.Reason, entry.Detail))
	}
	slices.Sort(details)
	if !strings.HasPrefix(details[0], "2:invalid:type='Task.Request' is not a valid event type") ||
		details[1] != "4:invalid:remote event is missing required field 'hlc'" {
		t.Fatalf("quarantine details %q", details)
	}
	if e.metric("lsnode_sync_http_ops_total", map[string]string{"result": "quarantined"}) != 2 {
		t.Fatalf("metrics:\n%s", e.metricsText())
	}
	before := len(h.Requests())
	if res := e.round()["py"]; res.Err != nil || res.Quarantined != 0 || len(h.Requests()) != before+1 {
		t.Fatalf("second round %+v", res)
	}
}

// TestHTTPPull_MissingArtifactRetriedNextRound: an event whose artifact
// the hub no longer holds (404) stops its origin for the round, recorded
// on the peer; other origins complete; the next round tries once more (no
// hot loop); once the artifact is back, the origin completes.
func TestHTTPPull_MissingArtifactRetriedNextRound(t *testing.T) {
	h := startHub(t, fakehub.Config{Seed: 14})
	art, _ := h.PutArtifact("note", "the note\n", "py@hub")
	record := artifactRecord(t, h.srv.URL, art)
	h.note(t, "before")
	h.note(t, "names the artifact", art)
	h.note(t, "after")
	for seq := int64(1); seq <= 3; seq++ {
		h.remote(t, thirdOrigin, seq, "note", nil)
	}
	h.DropArtifact(art)
	e := newPullEnv(t, nil)
	e.setPeers(peerEntry{Name: "py", URL: h.srv.URL})

	for round := 1; round <= 2; round++ {
		before := len(h.Requests())
		res := e.round()["py"]
		if res.Err != nil || len(res.OriginErrs) == 0 || res.Result() != "partial" {
			t.Fatalf("round %d: %+v", round, res)
		}
		if text := res.Error(); !strings.Contains(text, "/sync/artifact?id="+art+": HTTP Error 404: Not Found (\"artifact '"+art+"' not found\")") ||
			!strings.Contains(text, "wait for artifact(s) ['"+art+"']") {
			t.Fatalf("round %d error %q", round, text)
		}
		if vv := e.st.VersionVector(); vv[h.ReplicaID()] != 1 || vv[thirdOrigin] != 3 {
			t.Fatalf("round %d vector %v", round, vv)
		}
		reqs := h.Requests()[before:]
		if countRequests(reqs, "/sync/artifact") != 1 || countRequests(reqs, "/sync/ops") != 2-min(round-1, 1) {
			t.Fatalf("round %d requests %v", round, reqs)
		}
		st := e.status("py")
		if !st.Reachable || !strings.Contains(st.LastError, "HTTP Error 404") || st.LastErrorAt.IsZero() || !st.LastSuccessAt.IsZero() {
			t.Fatalf("round %d status %+v", round, st)
		}
	}
	if e.metric("lsnode_sync_http_pulls_total", map[string]string{"result": "partial"}) != 2 ||
		e.metric("lsnode_sync_http_artifacts_total", map[string]string{"result": "not_found"}) != 2 {
		t.Fatalf("metrics:\n%s", e.metricsText())
	}

	if ok, err := h.ApplyRemoteArtifact(record); !ok || err != nil {
		t.Fatal(ok, err)
	}
	res := e.round()["py"]
	if res.Result() != "ok" || res.PulledEvents != 2 || res.PulledArtifacts != 1 {
		t.Fatalf("after repair: %+v %s", res, res.Error())
	}
	if st := e.status("py"); st.LastError != "" || st.LastSuccessAt.IsZero() {
		t.Fatalf("status after repair %+v", st)
	}
}

// TestHTTPPull_CorruptArtifactRefused: an artifact whose content does not
// match its sha256 is refused by the store (quarantined once), its event
// waits, and it is not fetched again every round.
func TestHTTPPull_CorruptArtifactRefused(t *testing.T) {
	h := startHub(t, fakehub.Config{Seed: 15})
	art, _ := h.PutArtifact("patch", "good\n", "py@hub")
	h.note(t, "first")
	h.note(t, "patch", art)
	h.TamperArtifact(art, "evil\n")
	e := newPullEnv(t, nil)
	e.setPeers(peerEntry{Name: "py", URL: h.srv.URL})
	res := e.round()["py"]
	if res.Result() != "partial" || !strings.Contains(res.Error(), "refused by the store") || res.PulledEvents != 1 {
		t.Fatalf("round 1 %+v: %s", res, res.Error())
	}
	before := len(h.Requests())
	res = e.round()["py"]
	if res.Result() != "partial" || countRequests(h.Requests()[before:], "/sync/artifact") != 0 {
		t.Fatalf("round 2 fetched the refused artifact again: %v", h.Requests()[before:])
	}
	q, _ := e.st.Quarantine(context.Background(), 10)
	if len(q) != 1 || q[0].Reason != "artifact_invalid" || !strings.Contains(q[0].Detail, "failed hash verification") {
		t.Fatalf("quarantine %+v", q)
	}
	if e.st.VersionVector()[h.ReplicaID()] != 1 {
		t.Fatalf("the event naming the corrupt artifact was applied")
	}
}

// TestHTTPPull_LargePagesShrink: a page larger than the response bound
// is asked again with a smaller limit; an op larger than the bound alone
// stops only its origin.
func TestHTTPPull_LargePagesShrink(t *testing.T) {
	h := startHub(t, fakehub.Config{Seed: 16})
	for i := 0; i < 40; i++ {
		h.note(t, strings.Repeat("x", 1000)+fmt.Sprint(i))
	}
	for seq := int64(1); seq <= 2; seq++ {
		h.remote(t, thirdOrigin, seq, "note", map[string]any{"body": strings.Repeat("y", 40<<10)})
	}
	e := newPullEnv(t, func(c *hubpull.Config) { c.MaxResponseBytes = 16 << 10 })
	e.setPeers(peerEntry{Name: "py", URL: h.srv.URL})
	res := e.round()["py"]
	if res.PerOrigin[h.ReplicaID()] != 40 || res.Err != nil {
		t.Fatalf("round %+v: %s", res, res.Error())
	}
	if len(res.OriginErrs) != 1 || !strings.Contains(res.Error(), "its next op alone exceeds 16384 bytes") {
		t.Fatalf("origin errors %q", res.Error())
	}
	if !slices.ContainsFunc(h.Requests(), func(r string) bool { return strings.HasSuffix(r, "&limit=1") }) ||
		!slices.ContainsFunc(h.Requests(), func(r string) bool { return strings.HasSuffix(r, "&limit=250") }) {
		t.Fatalf("no shrunk pages in %v", h.Requests())
	}
}

// rewriteOps serves the hub but passes /sync/ops answers through fn.
func rewriteOps(h http.Handler, fn func(page map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/sync/ops" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var page map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
			panic(err)
		}
		fn(page)
		b, _ := json.Marshal(page)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(b)
	})
}

// TestHTTPPull_UndecodableOpStopsItsOrigin: an op whose fields have the
// wrong JSON types, or an event of another origin in a page, stops that
// origin before it (it cannot be quarantined by slot, and skipping it
// could drop it silently); ops before it and other origins are applied.
func TestHTTPPull_UndecodableOpStopsItsOrigin(t *testing.T) {
	h := startHub(t, fakehub.Config{Seed: 17})
	for i := 0; i < 3; i++ {
		h.note(t, fmt.Sprint(i))
	}
	for seq := int64(1); seq <= 3; seq++ {
		h.remote(t, thirdOrigin, seq, "note", nil)
	}
	srv := httptest.NewServer(rewriteOps(h.Handler(), func(page map[string]any) {
		events := page["events"].([]any)
		if len(events) < 2 {
			return
		}
		second := events[1].(map[string]any)
		if page["origin"] == thirdOrigin {
			second["body"] = 5
		} else {
			second["origin_replica"] = legacyOrigin
		}
	}))
	t.Cleanup(srv.Close)
	e := newPullEnv(t, nil)
	e.setPeers(peerEntry{Name: "odd", URL: srv.URL})
	res := e.round()["odd"]
	if res.Err != nil || len(res.OriginErrs) != 2 || res.PulledEvents != 2 {
		t.Fatalf("round %+v: %s", res, res.Error())
	}
	if !strings.Contains(res.Error(), "op 1 of the page is undecodable") || !strings.Contains(res.Error(), "of origin '"+legacyOrigin+"'") {
		t.Fatalf("errors %q", res.Error())
	}
	if vv := e.st.VersionVector(); vv[thirdOrigin] != 1 || vv[h.ReplicaID()] != 1 || vv[legacyOrigin] != 0 {
		t.Fatalf("vector %v", vv)
	}
	if e.metric("lsnode_sync_http_ops_total", map[string]string{"result": "undecodable"}) != 2 {
		t.Fatalf("metrics:\n%s", e.metricsText())
	}
}

func artifactRecord(t *testing.T, url, id string) map[string]any {
	t.Helper()
	resp, err := http.Get(url + "/sync/artifact?id=" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var rec struct{ Artifact map[string]any }
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Artifact
}

func TestConfig_Validate(t *testing.T) {
	base := hubpull.DefaultConfig("/x/peers.json")
	if err := base.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*hubpull.Config){
		"no file":      func(c *hubpull.Config) { c.PeersFile = "" },
		"negative":     func(c *hubpull.Config) { c.Interval = -1 },
		"no timeout":   func(c *hubpull.Config) { c.Timeout = 0 },
		"tiny bound":   func(c *hubpull.Config) { c.MaxResponseBytes = 10 },
		"page 501":     func(c *hubpull.Config) { c.PageLimit = 501 },
		"no parallel":  func(c *hubpull.Config) { c.Parallel = 0 },
		"page 0 limit": func(c *hubpull.Config) { c.PageLimit = 0 },
	} {
		c := base
		mutate(&c)
		if err := c.Validate(); !errors.Is(err, lssync.ErrInvalidConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

var _ hubpull.Log = (*store.Store)(nil)
