package fakehub_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/sync/fakehub"
)

var t0 = time.Date(2026, 7, 2, 21, 14, 9, 0, time.UTC)

type answer struct {
	status int
	ctype  string
	conn   string
	body   string
}

func get(t *testing.T, srv *httptest.Server, path, auth string) answer {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	conn := resp.Header.Get("Connection")
	if resp.Close {
		conn = "close" // Go's client consumes the header and sets Close
	}
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), conn, string(b)}
}

func newHub(t *testing.T, cfg fakehub.Config) (*fakehub.Hub, *httptest.Server, *hlc.ManualClock) {
	t.Helper()
	wall := hlc.NewManualClock(t0)
	cfg.Wall = wall
	h := fakehub.New(cfg)
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return h, srv, wall
}

func TestHub_ShapesAndKeyOrder(t *testing.T) {
	h, srv, _ := newHub(t, fakehub.Config{ReplicaID: "rep_0123456789ab", Seed: 1})
	art, err := h.PutArtifact("patch", "diff\n", "alice")
	if err != nil {
		t.Fatal(err)
	}
	id, err := h.Append(fakehub.Write{Type: "task.request", Stream: "s", Room: "r", FromAgent: "alice", ToAgent: "bob",
		Body: "héllo", Metadata: map[string]any{"b": 1, "a": "ü"}, ArtifactIDs: []string{art}})
	if err != nil {
		t.Fatal(err)
	}
	vv := get(t, srv, "/sync/version_vector", "")
	wantVV := `{"replica_id": "rep_0123456789ab", "version_vector": {"rep_0123456789ab": 1}, "profile": {"roles": ["agents"], ` +
		`"accelerator": null, "drawers": null, "hardware": "fakehub", "advertised_at": "2026-07-02T21:14:09Z"}, ` +
		`"profiles": {"rep_0123456789ab": {"roles": ["agents"], "accelerator": null, "drawers": null, "hardware": "fakehub", ` +
		`"advertised_at": "2026-07-02T21:14:09Z"}}}`
	if vv.status != 200 || vv.body != wantVV || vv.ctype != "application/json; charset=utf-8" || vv.conn != "close" {
		t.Fatalf("%+v\nwant %s", vv, wantVV)
	}
	ops := get(t, srv, "/sync/ops?origin=rep_0123456789ab", "")
	wantOps := `{"origin": "rep_0123456789ab", "events": [{"id": "` + id + `", "seq": 1, "origin_replica": "rep_0123456789ab", ` +
		`"origin_seq": 1, "hlc": "1783026849000-000000-rep_0123456789ab", "type": "task.request", "stream": "s", "room": "r", ` +
		`"topic": null, "from_agent": "alice", "to_agent": "bob", "correlation_id": null, "branch": null, "base_commit": null, ` +
		`"status": null, "artifact_ids": ["` + art + `"], "body": "h\u00e9llo", "created_at": "2026-07-02T21:14:09Z", ` +
		`"metadata": {"a": "\u00fc", "b": 1}}], "count": 1}`
	if ops.status != 200 || ops.body != wantOps {
		t.Fatalf("%+v\nwant %s", ops, wantOps)
	}
	a := get(t, srv, "/sync/artifact?id="+art, "")
	wantArt := `{"artifact": {"id": "` + art + `", "kind": "patch", "sha256": "` + sha("diff\n") + `", "size_bytes": 5, ` +
		`"content": "diff\n", "created_by": "alice", "created_at": "2026-07-02T21:14:09Z", "origin_replica": "rep_0123456789ab", ` +
		`"metadata": {}}}`
	if a.status != 200 || a.body != wantArt {
		t.Fatalf("%+v\nwant %s", a, wantArt)
	}
	peers := get(t, srv, "/sync/peers", "")
	if peers.status != 200 || !strings.HasPrefix(peers.body, `{"self": {"replica_id": "rep_0123456789ab", "name": "fakehub", "version_vector": {"rep_0123456789ab": 1}`) ||
		!strings.Contains(peers.body, `"peers": [], "unnamed_origins": [], "origin_profiles": {`) ||
		!strings.HasSuffix(peers.body, `"sync_interval_s": 15.0, "estate_source": {"in_process": true, "published_at": null, "writer_alive": true}}`) {
		t.Fatalf("peers %+v", peers)
	}
}

func TestHub_Errors(t *testing.T) {
	h, srv, _ := newHub(t, fakehub.Config{Token: "tok", Seed: 2})
	self := h.ReplicaID()
	const bearer = "Bearer tok"
	page := func(code int, msg string) string {
		return fmt.Sprintf(`<!DOCTYPE HTML>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <title>Error response</title>
    </head>
    <body>
        <h1>Error response</h1>
        <p>Error code: %d</p>
        <p>Message: %s.</p>
        <p>Error code explanation: %d - %s.</p>
    </body>
</html>
`, code, msg, code, map[int]string{401: "No permission -- see authorization schemes", 404: "Nothing matches the given URI"}[code])
	}
	cases := []struct {
		path, auth string
		status     int
		body       string
	}{
		{"/sync/version_vector", "", 401, page(401, "Unauthorized")},
		{"/sync/version_vector", "Bearer wrong", 401, page(401, "Unauthorized")},
		{"/sync/version_vector", "bearer tok", 401, page(401, "Unauthorized")},
		{"/sync/nope", bearer, 404, page(404, "Not Found")},
		{"/elsewhere", "", 404, page(404, "Not Found")},
		{"/sync/ops", bearer, 400, `{"error": "origin must be a non-empty string"}`},
		{"/sync/ops?origin=", bearer, 400, `{"error": "origin must be a non-empty string"}`},
		{"/sync/ops?origin=%20", bearer, 400, `{"error": "origin must be a non-empty string"}`},
		{"/sync/ops?origin=" + self + "&after=abc", bearer, 400, `{"error": "invalid literal for int() with base 10: 'abc'"}`},
		{"/sync/ops?origin=&after=abc", bearer, 400, `{"error": "invalid literal for int() with base 10: 'abc'"}`},
		{"/sync/ops?origin=" + self + "&after=1_0&limit=x", bearer, 400, `{"error": "invalid literal for int() with base 10: 'x'"}`},
		{"/sync/ops?origin=" + self + "&after=-1", bearer, 400, `{"error": "after_seq must be a non-negative integer"}`},
		{"/sync/ops?origin=" + self + "&limit=0", bearer, 400, `{"error": "limit must be a positive integer"}`},
		{"/sync/ops?origin=%20&after=-1&limit=0", bearer, 400, `{"error": "origin must be a non-empty string"}`},
		{"/sync/ops?origin=rep_x&after=+7&limit=99999", bearer, 200, `{"origin": "rep_x", "events": [], "count": 0}`},
		{"/sync/artifact?id=art_nope", bearer, 404, `{"error": "artifact 'art_nope' not found"}`},
		{"/sync/artifact", bearer, 400, `{"error": "artifact_id must be a non-empty string"}`},
		{"/healthz", "", 200, "ok\n"},
	}
	for _, c := range cases {
		got := get(t, srv, c.path, c.auth)
		if got.status != c.status || got.body != c.body || got.conn != "close" {
			t.Errorf("GET %s (%q): %d %q\nwant %d %q", c.path, c.auth, got.status, got.body, c.status, c.body)
		}
		if c.status == 401 && got.ctype != "text/html;charset=utf-8" {
			t.Errorf("401 content type %q", got.ctype)
		}
	}
}

func TestHub_PagingClampsTo500(t *testing.T) {
	h, srv, wall := newHub(t, fakehub.Config{Seed: 3})
	for i := 0; i < 620; i++ {
		wall.Advance(time.Millisecond)
		if _, err := h.Append(fakehub.Write{Type: "note", Stream: "s", Room: "r", FromAgent: "a", Body: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	var p struct {
		Events []struct {
			OriginSeq int64 `json:"origin_seq"`
		}
		Count int
	}
	r := get(t, srv, "/sync/ops?origin="+h.ReplicaID()+"&limit=9999", "")
	if err := json.Unmarshal([]byte(r.body), &p); err != nil || p.Count != 500 || len(p.Events) != 500 {
		t.Fatalf("limit 9999 served %d (%v)", p.Count, err)
	}
	r = get(t, srv, "/sync/ops?origin="+h.ReplicaID()+"&after=600&limit=7", "")
	if err := json.Unmarshal([]byte(r.body), &p); err != nil || p.Count != 7 || p.Events[0].OriginSeq != 601 {
		t.Fatalf("after 600 limit 7: %+v (%v)", p, err)
	}
}

// TestHub_GappedOwnOrigin: remote applies take rowids, so the hub's own
// origin_seq (its rowid) has gaps, and a legacy 12-hex origin is carried.
func TestHub_GappedOwnOriginAndApply(t *testing.T) {
	h, _, _ := newHub(t, fakehub.Config{Seed: 4})
	w := fakehub.Write{Type: "note", Stream: "s", Room: "r", FromAgent: "a"}
	if _, err := h.Append(w); err != nil {
		t.Fatal(err)
	}
	legacy := "rep_abcdefabcdef"
	remote := map[string]any{"id": "evt_20260702T211409_000000000001", "type": "Task.Request", "stream": "s", "room": "r",
		"from_agent": "x", "created_at": "2026-07-02T21:14:09Z", "origin_replica": legacy, "origin_seq": json.Number("7"),
		"hlc": "1783026849000-000000-" + legacy, "artifact_ids": []any{}, "metadata": map[string]any{}}
	if ok, err := h.ApplyRemote(remote); !ok || err != nil {
		t.Fatalf("apply: %v %v (the hub stores an invalid type)", ok, err)
	}
	if ok, err := h.ApplyRemote(remote); ok || err != nil {
		t.Fatalf("duplicate: %v %v", ok, err)
	}
	if _, err := h.Append(w); err != nil {
		t.Fatal(err)
	}
	vv := h.VersionVector()
	if vv[h.ReplicaID()] != 3 || vv[legacy] != 7 {
		t.Fatalf("vector %v: own origin should be at 3 (rowids 1 and 3), legacy at 7", vv)
	}
	missing := map[string]any{}
	for k, v := range remote {
		missing[k] = v
	}
	missing["hlc"] = ""
	if _, err := h.ApplyRemote(missing); err == nil || err.Error() != "remote event is missing required field 'hlc'" {
		t.Fatalf("missing hlc: %v", err)
	}
	missing["hlc"], missing["id"], missing["origin_seq"] = remote["hlc"], "evt_other", json.Number("8")
	missing["artifact_ids"] = []any{"art_gone"}
	if _, err := h.ApplyRemote(missing); err == nil || err.Error() != "remote event 'evt_other' references artifact 'art_gone' not yet applied locally" {
		t.Fatalf("missing artifact: %v", err)
	}
	echo := map[string]any{}
	for k, v := range remote {
		echo[k] = v
	}
	echo["origin_replica"], echo["id"] = h.ReplicaID(), "evt_echo"
	if ok, err := h.ApplyRemote(echo); ok || err != nil {
		t.Fatalf("own echo: %v %v", ok, err)
	}
	if _, err := h.ApplyRemoteArtifact(map[string]any{"id": "art_x", "kind": "note", "sha256": "00", "content": "c",
		"created_by": "a", "created_at": "2026-07-02T21:14:09Z"}); err == nil ||
		err.Error() != "remote artifact 'art_x' failed hash verification (claimed 00..., computed "+sha("c")[:16]+"...)" {
		t.Fatalf("hash: %v", err)
	}
}

func TestHub_PreReplicationBackfill(t *testing.T) {
	h, srv, _ := newHub(t, fakehub.Config{ReplicaID: "rep_0123456789ab", Seed: 5})
	ids := h.ImportPreReplication([]fakehub.Legacy{
		{Write: fakehub.Write{Type: "note", Stream: "s", Room: "r", FromAgent: "old"}, CreatedAt: "2025-01-02T03:04:05Z"},
		{Write: fakehub.Write{Type: "note", Stream: "s", Room: "r", FromAgent: "old"}, CreatedAt: "garbage"},
	})
	r := get(t, srv, "/sync/ops?origin=rep_0123456789ab", "")
	for i, want := range []string{
		`"id": "` + ids[0] + `", "seq": 1, "origin_replica": "rep_0123456789ab", "origin_seq": 1, "hlc": "1735787045000-000001-rep_0123456789ab"`,
		`"id": "` + ids[1] + `", "seq": 2, "origin_replica": "rep_0123456789ab", "origin_seq": 2, "hlc": "0000000000000-000002-rep_0123456789ab"`,
	} {
		if !strings.Contains(r.body, want) {
			t.Fatalf("event %d: %s\nwant %s", i, r.body, want)
		}
	}
}

// TestHub_SyncWithPeer: one hub pulls another with the Python engine,
// third-party origins included, artifacts first.
func TestHub_SyncWithPeer(t *testing.T) {
	a, srvA, _ := newHub(t, fakehub.Config{Token: "ta", Seed: 6})
	b, _, _ := newHub(t, fakehub.Config{Seed: 7})
	art, _ := a.PutArtifact("note", "n", "a")
	for i := 0; i < 3; i++ {
		if _, err := a.Append(fakehub.Write{Type: "note", Stream: "s", Room: "r", FromAgent: "a", ArtifactIDs: []string{art}}); err != nil {
			t.Fatal(err)
		}
	}
	third := "rep_" + strings.Repeat("ab", 16)
	if _, err := a.ApplyRemote(map[string]any{"id": "evt_t", "type": "note", "stream": "s", "room": "r", "from_agent": "t",
		"created_at": "2026-07-02T21:14:09Z", "origin_replica": third, "origin_seq": 4, "hlc": "1783026849000-000000-" + third}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := b.SyncWithPeer(ctx, srvA.Client(), srvA.URL+"/", "ta")
	if err != nil {
		t.Fatal(err)
	}
	if st.PulledEvents != 4 || st.PulledArtifacts != 1 || st.PerOrigin[third] != 1 || st.PeerReplica != a.ReplicaID() {
		t.Fatalf("stats %+v", st)
	}
	if _, err := b.SyncWithPeer(ctx, srvA.Client(), srvA.URL, "bad"); err == nil ||
		err.Error() != srvA.URL+"/sync/version_vector: HTTP Error 401: Unauthorized" {
		t.Fatalf("wrong token: %v", err)
	}
	st, err = b.SyncWithPeer(ctx, srvA.Client(), srvA.URL, "ta")
	if err != nil || st.PulledEvents != 0 || st.Requests != 1 {
		t.Fatalf("second round: %+v %v", st, err)
	}
}

func sha(s string) string {
	return fmt.Sprintf("%x", sha256.Sum256([]byte(s)))
}
