package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// pyPuller is the Python hub's pull engine (logsync.sync_with_peer) in Go:
// version vector, then per foreign origin pages of ops after the local
// top, each event's missing artifacts fetched first, until the peer's top.
type pyPuller struct {
	t     *testing.T
	base  string
	token string
	into  *store.Store
	limit int
	calls int
}

func (p *pyPuller) get(path string, v any) int {
	p.t.Helper()
	p.calls++
	req, _ := http.NewRequest("GET", p.base+path, nil)
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		p.t.Fatalf("GET %s: decode: %v", path, err)
	}
	return resp.StatusCode
}

// pull runs one round and returns the number of events pulled.
func (p *pyPuller) pull(ctx context.Context) int {
	var vv struct {
		ReplicaID     string           `json:"replica_id"`
		VersionVector map[string]int64 `json:"version_vector"`
	}
	p.get("/sync/version_vector", &vv)
	local := p.into.VersionVector()
	pulled := 0
	for origin, top := range vv.VersionVector {
		if origin == p.into.ReplicaID() {
			continue
		}
		after := local[origin]
		for after < top {
			var page struct {
				Origin string        `json:"origin"`
				Events []store.Event `json:"events"`
				Count  int           `json:"count"`
			}
			p.get(fmt.Sprintf("/sync/ops?origin=%s&after=%d&limit=%d", url.QueryEscape(origin), after, p.limit), &page)
			if page.Count != len(page.Events) || page.Origin != origin {
				p.t.Fatalf("page header %q/%d for %d events", page.Origin, page.Count, len(page.Events))
			}
			if len(page.Events) == 0 {
				break // the vector promised more than the peer served
			}
			for _, ev := range page.Events {
				var b store.Batch
				missing, err := p.into.MissingArtifacts(ctx, ev.ArtifactIDs)
				if err != nil {
					p.t.Fatal(err)
				}
				for _, id := range missing {
					var a struct{ Artifact store.Artifact }
					if code := p.get("/sync/artifact?id="+url.QueryEscape(id), &a); code != 200 {
						p.t.Fatalf("artifact %s: %d", id, code)
					}
					b.Artifacts = append(b.Artifacts, a.Artifact)
				}
				b.Ops = []store.Op{{Event: ev, PrevSeq: after}}
				res, err := p.into.ApplyBatch(ctx, b)
				if err != nil || res.Applied != 1 {
					p.t.Fatalf("apply %s: %+v %v", ev.ID, res, err)
				}
				after = max(after, ev.OriginSeq)
				pulled++
			}
		}
	}
	return pulled
}

func TestSync_PythonPullerConverges(t *testing.T) {
	n := htStart(t, withToken)
	ctx := context.Background()
	a, err := n.Store().PutArtifact(ctx, store.ArtifactInput{Kind: "patch", Content: "diff --git a b\n", CreatedBy: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 11; i++ {
		in := store.AppendInput{Body: fmt.Sprintf("event %d ✓", i)}
		if i == 4 {
			in.ArtifactIDs = []string{a.Artifact.ID}
		}
		nodetest.Append(t, n.Store(), in)
	}
	into := nodetest.OpenStore(t)
	p := &pyPuller{t: t, base: n.URL(), token: nodetest.SharedToken, into: into, limit: 3}
	if got := p.pull(ctx); got != 11 {
		t.Fatalf("pulled %d events, want 11", got)
	}
	// 1 version vector + ceil(11/3) pages + 1 artifact.
	if p.calls != 1+4+1 {
		t.Fatalf("%d requests", p.calls)
	}
	self := n.Store().ReplicaID()
	if got := into.VersionVector()[self]; got != 11 {
		t.Fatalf("puller holds %d of the origin, want 11", got)
	}
	want, _ := n.Store().List(ctx, store.Filter{Limit: 500, Order: "asc"})
	got, _ := into.List(ctx, store.Filter{Limit: 500, Order: "asc"})
	for i := range want.Events {
		w, g := want.Events[i], got.Events[i]
		if w.ID != g.ID || w.Body != g.Body || w.HLC != g.HLC || strings.Join(w.ArtifactIDs, ",") != strings.Join(g.ArtifactIDs, ",") {
			t.Fatalf("event %d differs:\n%+v\n%+v", i, w, g)
		}
	}
	if p.pull(ctx) != 0 {
		t.Fatal("a second round pulled again")
	}
}

func TestSync_VersionVectorShape(t *testing.T) {
	wall := hlc.NewManualClock(time.Date(2026, 7, 2, 21, 14, 9, 0, time.UTC))
	n := htStart(t, func(c *Options) { c.Wall = wall; c.Version = "1.2.3" })
	self := n.Store().ReplicaID()
	r := nodetest.Get(t, n, "/sync/version_vector", "")
	wantEmpty := `{"replica_id": "` + self + `", "version_vector": {}, "profile": {"roles": ["replica"], ` +
		`"accelerator": null, "drawers": null, "hardware": "` + runtime.GOOS + "/" + runtime.GOARCH +
		` lsnode 1.2.3", "advertised_at": "2026-07-02T21:14:09Z"}, "profiles": {"` + self + `": {"roles": ["replica"], ` +
		`"accelerator": null, "drawers": null, "hardware": "` + runtime.GOOS + "/" + runtime.GOARCH +
		` lsnode 1.2.3", "advertised_at": "2026-07-02T21:14:09Z"}}}`
	if r.Status != 200 || r.Body != wantEmpty || r.Header.Get("Content-Type") != contentJSON {
		t.Fatalf("%d %s\nwant %s", r.Status, r.Body, wantEmpty)
	}
	nodetest.Append(t, n.Store(), store.AppendInput{})
	m := nodetest.JSON(t, nodetest.Get(t, n, "/sync/version_vector", ""))
	if m["version_vector"].(map[string]any)[self] != float64(1) {
		t.Fatalf("vector %v", m["version_vector"])
	}
	if roles := m["profile"].(map[string]any)["roles"].([]any); len(roles) != 2 || roles[1] != "agents" {
		t.Fatalf("roles %v: a node that authored events serves agents", roles)
	}
}

func TestSync_OpsErrorsAndPaging(t *testing.T) {
	n := htStart(t, nil)
	self := n.Store().ReplicaID()
	for i := 0; i < 3; i++ {
		nodetest.Append(t, n.Store(), store.AppendInput{})
	}
	errs := map[string]string{
		"":                                      "origin must be a non-empty string",
		"?origin=":                              "origin must be a non-empty string",
		"?origin=%20%20":                        "origin must be a non-empty string",
		"?origin=a%01b":                         "origin contains control characters",
		"?origin=" + self + "&after=abc":        "invalid literal for int() with base 10: 'abc'",
		"?origin=" + self + "&after=-1":         "after_seq must be a non-negative integer",
		"?origin=" + self + "&limit=0":          "limit must be a positive integer",
		"?origin=" + self + "&limit=x%27":       `invalid literal for int() with base 10: "x'"`,
		"?origin=%20&after=-1&limit=0":          "origin must be a non-empty string",
		"?origin=" + self + "&after=-1&limit=0": "after_seq must be a non-negative integer",
	}
	for q, want := range errs {
		r := nodetest.Get(t, n, "/sync/ops"+q, "")
		if r.Status != 400 || r.Body != `{"error": "`+strings.ReplaceAll(want, `"`, `\"`)+`"}` {
			t.Errorf("%s: %d %s, want %q", q, r.Status, r.Body, want)
		}
	}
	page := nodetest.JSON(t, nodetest.Get(t, n, "/sync/ops?origin="+self+"&after=1&limit=1", ""))
	evs := page["events"].([]any)
	if page["origin"] != self || page["count"] != float64(1) || evs[0].(map[string]any)["origin_seq"] != float64(2) {
		t.Fatalf("page %v", page)
	}
	// Python's int() accepts blanks, a sign and underscores; blank values
	// are dropped (the default applies) and the last repeated key wins.
	page = nodetest.JSON(t, nodetest.Get(t, n, "/sync/ops?origin="+self+"&after=%20+1_0%20&limit=&limit=1&limit=", ""))
	if page["count"] != float64(0) {
		t.Fatalf("after=' +1_0 ': %v", page)
	}
	page = nodetest.JSON(t, nodetest.Get(t, n, "/sync/ops?origin="+self+"&limit=1000&after=0", ""))
	if page["count"] != float64(3) {
		t.Fatalf("limit clamp: %v", page)
	}
	page = nodetest.JSON(t, nodetest.Get(t, n, "/sync/ops?origin=rep_000000000000", ""))
	if page["count"] != float64(0) || page["origin"] != "rep_000000000000" {
		t.Fatalf("unknown origin: %v", page)
	}
}

func TestSync_Artifact(t *testing.T) {
	n := htStart(t, nil)
	w, err := n.Store().PutArtifact(context.Background(), store.ArtifactInput{Kind: "note", Content: "héllo", CreatedBy: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	m := nodetest.JSON(t, nodetest.Get(t, n, "/sync/artifact?id="+w.Artifact.ID, ""))
	a := m["artifact"].(map[string]any)
	if a["content"] != "héllo" || a["sha256"] != w.Artifact.SHA256 || a["id"] != w.Artifact.ID {
		t.Fatalf("artifact %v", a)
	}
	if r := nodetest.Get(t, n, "/sync/artifact?id=art_nope", ""); r.Status != 404 || r.Body != `{"error": "artifact 'art_nope' not found"}` {
		t.Fatalf("unknown: %d %s", r.Status, r.Body)
	}
	if r := nodetest.Get(t, n, "/sync/artifact", ""); r.Status != 400 || r.Body != `{"error": "artifact_id must be a non-empty string"}` {
		t.Fatalf("no id: %d %s", r.Status, r.Body)
	}
	r := nodetest.Get(t, n, "/sync/elsewhere", "")
	if r.Status != 404 || !strings.Contains(r.Body, "<p>Message: Not Found.</p>") || r.Header.Get("Content-Type") != contentHTML {
		t.Fatalf("unknown sync route: %d %s", r.Status, r.Body)
	}
}

func TestSync_Peers(t *testing.T) {
	n := htStart(t, func(c *Options) {
		c.Roster = func(context.Context) Roster {
			return Roster{
				Peers: []syncwire.EstatePeer{
					{Name: "never", URL: "https://never.example"},
					{Name: "win", URL: "https://win.example", Synced: true, ReplicaID: "rep_aaaaaaaaaaaa", Reachable: true,
						LastSuccessAt: time.Date(2026, 7, 2, 21, 14, 9, 0, time.UTC), LastPulledEvents: 3, RemoteVersionVector: map[string]int64{"rep_aaaaaaaaaaaa": 3},
						Profile: json.RawMessage(`{"roles": ["replica"], "hardware": "Windows-11"}`)},
					{Name: "down", URL: "https://down.example", Synced: true, LastError: "boom", LastErrorAt: time.Date(2026, 7, 2, 21, 15, 0, 0, time.UTC)},
				},
				Profiles:     map[string]any{"rep_aaaaaaaaaaaa": json.RawMessage(`{"roles": ["replica"], "hardware": "Windows-11"}`)},
				SyncInterval: 15 * time.Second,
				InProcess:    true,
			}
		}
	})
	self := n.Store().ReplicaID()
	// Two foreign origins arrive: one a named peer's, one only carried.
	src := nodetest.OpenStore(t)
	ev, err := src.Append(context.Background(), store.AppendInput{Type: "x", Stream: "s", Room: "r", FromAgent: "z"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := n.Store().ApplyBatch(context.Background(), store.Batch{Ops: []store.Op{{Event: ev.Event}}}); err != nil || res.Applied != 1 {
		t.Fatalf("apply: %+v %v", res, err)
	}
	r := nodetest.Get(t, n, "/sync/peers", "")
	m := nodetest.JSON(t, r)
	if s := m["self"].(map[string]any); s["replica_id"] != self || s["name"] == "" {
		t.Fatalf("self %v", s)
	}
	if u := m["unnamed_origins"].([]any); len(u) != 1 || u[0] != src.ReplicaID() {
		t.Fatalf("unnamed_origins %v", u)
	}
	if m["sync_interval_s"] != 15.0 {
		t.Fatalf("sync_interval_s %v", m["sync_interval_s"])
	}
	for _, want := range []string{
		`"peers": [{"name": "never", "url": "https://never.example"}, {"name": "win", "url": "https://win.example", ` +
			`"replica_id": "rep_aaaaaaaaaaaa", "reachable": true, "last_error": null, "last_error_at": null, ` +
			`"last_success_at": "2026-07-02T21:14:09Z", "last_pulled_events": 3, "last_pulled_artifacts": 0, ` +
			`"remote_version_vector": {"rep_aaaaaaaaaaaa": 3}, "profile": {"roles": ["replica"], "hardware": "Windows-11"}}, ` +
			`{"name": "down", "url": "https://down.example", "replica_id": null, "reachable": false, "last_error": "boom", ` +
			`"last_error_at": "2026-07-02T21:15:00Z", "last_success_at": null, "remote_version_vector": null, "profile": null}]`,
		`"sync_interval_s": 15.0`,
		`"estate_source": {"in_process": true, "published_at": null, "writer_alive": true}`,
		`"rep_aaaaaaaaaaaa": {"roles": ["replica"], "hardware": "Windows-11"}`,
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("peers payload lacks\n%s\nin\n%s", want, r.Body)
		}
	}
	if !regexp.MustCompile(`^\{"self": \{"replica_id": .*\}, "peers": .*, "unnamed_origins": .*, "origin_profiles": .*, "sync_interval_s": .*, "estate_source": .*\}$`).MatchString(r.Body) {
		t.Fatalf("key order: %s", r.Body)
	}
}

// failingStore fails every read with a storage error, or panics.
type failingStore struct {
	Log
	panics bool
}

func (f failingStore) OpsAfter(context.Context, string, int64, int, int) ([]store.Op, error) {
	if f.panics {
		panic("boom")
	}
	return nil, errors.New("database is locked")
}

func TestSync_UnexpectedErrorsAre500JSON(t *testing.T) {
	for _, panics := range []bool{false, true} {
		cfg := testConfig(t)
		cfg.Port, cfg.Store = 8765, failingStore{panics: panics}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "http://127.0.0.1:8765/sync/ops?origin=rep_000000000000", nil)
		New(cfg).Handler(mcpStandIn).ServeHTTP(rec, req)
		if rec.Code != 500 || rec.Body.String() != `{"error": "internal error"}` || rec.Header().Get("Content-Type") != contentJSON {
			t.Errorf("panics=%v: %d %s", panics, rec.Code, rec.Body)
		}
	}
}

// TestSync_ArtifactNotFoundNamesTheIDAsSent: the hub looks the artifact
// up by the trimmed id but names the id of the query in its 404.
func TestSync_ArtifactNotFoundNamesTheIDAsSent(t *testing.T) {
	n := htStart(t, nil)
	r := nodetest.Get(t, n, "/sync/artifact?id=+art_nope%20", "")
	if want := `{"error": "artifact ' art_nope ' not found"}`; r.Status != 404 || r.Body != want {
		t.Fatalf("got %d %s, want 404 %s", r.Status, r.Body, want)
	}
}
