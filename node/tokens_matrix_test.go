package node

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// The tokens of the matrix: the shared token plus the tokens file of the
// token tests (nodetest.TokensFile), with an agent token and an admin
// token.
const (
	tkAgent = nodetest.AgentToken
	tkAdmin = nodetest.AdminToken
	tkWrong = "not-a-token"
	tkFile  = nodetest.TokensFile
)

// tkStart starts a node with the shared token and the matrix tokens file.
func tkStart(t *testing.T, file string) *Node {
	t.Helper()
	path := nodetest.WriteTokensFile(t, file)
	return htStart(t, func(c *Config) {
		c.Auth.Token = nodetest.SharedToken
		c.Auth.TokensFile = path
	})
}

// tkCaller is one column of the matrix: the Authorization header sent.
type tkCaller struct{ name, token string }

var tkCallers = []tkCaller{
	{"none", ""}, {"wrong", tkWrong}, {"agent", tkAgent}, {"admin", tkAdmin}, {"shared", nodetest.SharedToken},
}

// tkRoutes are every HTTP route with the status each caller gets.
var tkRoutes = []struct {
	method, path, body      string
	none, agent, authorized int // none also stands for a wrong token
}{
	{"GET", "/healthz", "", 200, 200, 200},
	{"GET", "/readyz", "", 200, 200, 200},
	{"GET", "/statusz", "", 401, 403, 200},
	{"GET", "/metrics", "", 401, 403, 200},
	{"GET", "/debug/pprof/", "", 401, 403, 200},
	{"GET", "/debug/pprof/goroutine?debug=1", "", 401, 403, 200},
	{"GET", "/debug/pprof/nope", "", 401, 403, 404},
	{"GET", "/lsnode/agents", "", 401, 403, 200},
	{"GET", "/lsnode/keys", "", 401, 403, 409}, // 409: this node runs no gossip
	{"POST", "/lsnode/keys", `{"op":"use","key":"x"}`, 401, 403, 409},
	{"GET", "/logstream/stream", "", 401, 200, 200},
	{"GET", "/logstream/events", "", 401, 200, 200},
	{"GET", "/logstream/search?q=x", "", 401, 200, 200},
	{"GET", "/lsnode/awaiting?agent=x", "", 401, 200, 200},
	{"GET", "/lsnode/cycles", "", 401, 200, 200},
	{"GET", "/sync/version_vector", "", 401, 403, 200},
	{"GET", "/sync/ops?origin=rep_000000000000", "", 401, 403, 200},
	{"GET", "/sync/artifact?id=art_nope", "", 401, 403, 404},
	{"GET", "/sync/peers", "", 401, 403, 200},
	{"GET", "/sync/nope", "", 401, 404, 404},
	{"GET", "/nope", "", 404, 404, 404},
	{"POST", "/mcp", nodetest.ToolsList, 401, 200, 200},
	{"POST", "/nope", "{}", 401, 404, 404},
}

func TestTokens_RouteMatrix(t *testing.T) {
	n := tkStart(t, tkFile)
	for _, rt := range tkRoutes {
		for _, c := range tkCallers {
			t.Run(rt.method+rt.path+"/"+c.name, func(t *testing.T) {
				h := map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
				if c.token != "" {
					h["Authorization"] = "Bearer " + c.token
				}
				want := rt.authorized
				switch c.name {
				case "none", "wrong":
					want = rt.none
				case "agent":
					want = rt.agent
				}
				if rt.path == "/logstream/stream" && want == 200 {
					got, _ := nodetest.Status(t, n, nodetest.Req{Method: rt.method, Path: rt.path, Header: h})
					if got != want {
						t.Fatalf("status %d, want %d", got, want)
					}
					return
				}
				r := nodetest.Do(t, n, nodetest.Req{Method: rt.method, Path: rt.path, Body: rt.body, Header: h})
				if r.Status != want {
					t.Fatalf("status %d, want %d: %s", r.Status, want, r.Body)
				}
				if r.Status == http.StatusForbidden {
					msg, _ := nodetest.JSON(t, r)["error"].(string)
					if !strings.Contains(msg, "needs an admin token") || !strings.Contains(msg, `"pi"`) {
						t.Fatalf("403 error %q does not say an admin token is needed, naming the token", msg)
					}
				}
			})
		}
	}
}

// tkPaths are the two ways a tools/call reaches the tools: the fast path
// (a plain call) and the SDK server (a call with _meta, which the fast
// path leaves to the SDK). Both must apply the token's identity.
var tkPaths = []struct{ name, meta string }{{"fast", ""}, {"sdk", `,"_meta":{}`}}

// tkCall runs one tools/call through the node's surface with token; meta
// is "" or tkPaths' _meta member.
func tkCall(t *testing.T, n *Node, token, meta, tool, args string) nodetest.RPCReply {
	t.Helper()
	h := map[string]string{"Accept": "application/json", "Content-Type": "application/json"}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, tool, args, meta)
	r := nodetest.Do(t, n, nodetest.Req{Method: http.MethodPost, Path: "/mcp", Body: body, Header: h})
	if r.Status != http.StatusOK {
		t.Fatalf("%s: status %d: %s", tool, r.Status, r.Body)
	}
	var out nodetest.RPCReply
	if err := json.Unmarshal([]byte(r.Body), &out); err != nil {
		t.Fatalf("%s: decode %s: %v", tool, r.Body, err)
	}
	return out
}

// tkCounts is how many events and artifacts the node holds.
func tkCounts(t *testing.T, n *Node) store.Stats {
	t.Helper()
	st, err := n.Store().Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return store.Stats{Events: st.Events, Artifacts: st.Artifacts}
}

func TestTokens_WriteMatrix(t *testing.T) {
	n := tkStart(t, tkFile)
	target := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "pi@laptop"})
	hiddenTarget := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "eve"})
	hidden, err := n.Store().PutArtifact(context.Background(), store.ArtifactInput{Kind: "note", CreatedBy: "eve", Content: "eve's"})
	if err != nil {
		t.Fatal(err)
	}
	writes := []struct {
		tool, self, other string // arguments writing as a name the agent token may use, and one it may not
		refusal           string
	}{
		{"mempalace_event_append",
			`{"type":"note","stream":"s","room":"r","from_agent":"pi@laptop","to_agent":"boss"}`,
			`{"type":"note","stream":"s","room":"r","from_agent":"eve","to_agent":"boss"}`,
			`from_agent 'eve' is not a name token "pi" may write as (it may write as: pi@laptop, pi-*)`},
		{"mempalace_event_ack",
			`{"event_id":"` + target.ID + `","from_agent":"pi-2","status":"applied"}`,
			`{"event_id":"` + target.ID + `","from_agent":"eve","status":"applied"}`,
			`from_agent 'eve' is not a name token "pi" may write as (it may write as: pi@laptop, pi-*)`},
		{"mempalace_artifact_put",
			`{"kind":"note","content":"mine","created_by":"pi@laptop"}`,
			`{"kind":"note","content":"theirs","created_by":"eve"}`,
			`created_by 'eve' is not a name token "pi" may write as (it may write as: pi@laptop, pi-*)`},
		{"mempalace_patch_submit",
			`{"content":"--- a\n+++ b\n","from_agent":"pi@laptop","stream":"s"}`,
			`{"content":"--- a\n+++ b\n","from_agent":"eve","stream":"s"}`,
			`from_agent 'eve' is not a name token "pi" may write as (it may write as: pi@laptop, pi-*)`},
		{"mempalace_task_create",
			`{"project":"p","from_agent":"pi@laptop","to_agent":"boss","goal":"g","branch":"main","base_commit":"abcdef1","done":"d"}`,
			`{"project":"p","from_agent":"eve","to_agent":"boss","goal":"g","branch":"main","base_commit":"abcdef1","done":"d"}`,
			`from_agent 'eve' is not a name token "pi" may write as (it may write as: pi@laptop, pi-*)`},
		// Not impersonation, but the same guard: a scoped token cannot
		// attach an artifact it may not read, nor ack an event it may not
		// see; both answer as for an id that does not exist.
		{"mempalace_event_append",
			`{"type":"note","stream":"s","room":"r","from_agent":"pi@laptop"}`,
			`{"type":"note","stream":"s","room":"r","from_agent":"pi@laptop","artifact_ids":["` + hidden.Artifact.ID + `"]}`,
			`artifact_ids references unknown artifact '` + hidden.Artifact.ID + `'`},
		{"mempalace_event_ack",
			`{"event_id":"` + target.ID + `","from_agent":"pi@laptop"}`,
			`{"event_id":"` + hiddenTarget.ID + `","from_agent":"pi@laptop"}`,
			`event '` + hiddenTarget.ID + `' not found`},
	}
	// The agent token runs every row on both paths before the admin and
	// shared tokens write: their accepted writes (an event of pi@laptop
	// attaching the hidden artifact) would bring it into the agent's scope.
	for _, callers := range [][]tkCaller{tkCallers[2:3], tkCallers[3:]} {
		for i, w := range writes {
			for _, path := range tkPaths {
				t.Run(fmt.Sprintf("%s-%d-%s-%s", callers[0].name, i, w.tool, path.name), func(t *testing.T) {
					tkWrite(t, n, callers, path.meta, w.tool, w.self, w.other, w.refusal)
				})
			}
		}
	}
}

// tkWrite runs one write of the matrix with each caller: as a name the
// agent token may not use (refused for it alone, nothing stored), then
// as one it may.
func tkWrite(t *testing.T, n *Node, callers []tkCaller, meta, tool, self, other, refusal string) {
	for _, c := range callers {
		before := tkCounts(t, n)
		p := tkCall(t, n, c.token, meta, tool, other).Payload(t)
		after := tkCounts(t, n)
		if c.name == "agent" {
			if p["success"] != false || p["error"] != refusal || len(p) != 2 {
				t.Fatalf("agent token: %v, want {success: false, error: %q}", p, refusal)
			}
			if after != before {
				t.Fatalf("a refused write stored something: %+v -> %+v", before, after)
			}
		} else if p["success"] != true {
			t.Fatalf("%s token: %v, want success", c.name, p)
		}
		if p := tkCall(t, n, c.token, meta, tool, self).Payload(t); p["success"] != true {
			t.Fatalf("%s token writing as itself: %v", c.name, p)
		}
	}
}

func TestTokens_ReadMatrix(t *testing.T) {
	n := tkStart(t, tkFile)
	mine := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "pi@laptop", CorrelationID: "c1", Status: "open"})
	broadcast := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "*"})
	theirs := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "eve", CorrelationID: "c2", Status: "open"})
	ctx := context.Background()
	put := func(by string, attachTo ...string) string {
		a, err := n.Store().PutArtifact(ctx, store.ArtifactInput{Kind: "note", CreatedBy: by, Content: "by " + by + strings.Join(attachTo, ",")})
		if err != nil {
			t.Fatal(err)
		}
		if len(attachTo) > 0 {
			nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: attachTo[0], ArtifactIDs: []string{a.Artifact.ID}})
		}
		return a.Artifact.ID
	}
	ownArt, sharedArt, hiddenArt := put("pi@laptop"), put("boss", "pi@laptop"), put("boss", "eve")
	all := []string{mine.ID, broadcast.ID, theirs.ID}
	ids := func(p map[string]any) []string {
		var out []string
		for _, e := range p["events"].([]any) {
			id := e.(map[string]any)["id"].(string)
			if id == mine.ID || id == broadcast.ID || id == theirs.ID {
				out = append(out, id)
			}
		}
		return out
	}
	for _, path := range tkPaths {
		for _, c := range tkCallers[2:] {
			t.Run(path.name+"/"+c.name, func(t *testing.T) {
				call := func(tool, args string) map[string]any { return tkCall(t, n, c.token, path.meta, tool, args).Payload(t) }
				want := all
				if c.name == "agent" {
					want = []string{mine.ID, broadcast.ID}
				}
				if got := ids(call("mempalace_event_list", `{"order":"asc","limit":500}`)); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("event_list: %v, want %v", got, want)
				}
				if got := ids(call("mempalace_event_wait", `{"timeout_ms":0,"limit":500}`)); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("event_wait: %v, want %v", got, want)
				}
				r := nodetest.Get(t, n, "/logstream/events?limit=500", c.token)
				if got := ids(nodetest.JSON(t, r)); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("/logstream/events: %v, want %v", got, want)
				}
				owed := ids(call("mempalace_event_owed", `{"agent":"eve"}`))
				if wantOwed := c.name != "agent"; (len(owed) == 1) != wantOwed {
					t.Errorf("event_owed of eve: %v (visible: %v)", owed, wantOwed)
				}
				awaited := call("mempalace_event_awaiting", `{"agent":"boss"}`)
				var asks []string
				for _, a := range awaited["asks"].([]any) {
					if id := a.(map[string]any)["id"].(string); id == mine.ID || id == theirs.ID {
						asks = append(asks, id)
					}
				}
				wantAsks := []string{mine.ID, theirs.ID}
				if c.name == "agent" {
					wantAsks = wantAsks[:1]
				}
				if strings.Join(asks, " ") != strings.Join(wantAsks, " ") {
					t.Errorf("event_awaiting of boss: %v, want %v", asks, wantAsks)
				}
				tkSameAsHTTP(t, n, c.token, path.meta, "mempalace_event_awaiting", `{"agent":"boss"}`, "/lsnode/awaiting?agent=boss")
				if got := ids(call("mempalace_event_search", `{"query":"from_agent:boss","order":"hlc"}`)); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("event_search: %v, want %v", got, want)
				}
				tkSameAsHTTP(t, n, c.token, path.meta, "mempalace_event_search", `{"query":"from_agent:boss"}`, "/logstream/search?q=from_agent:boss")
				for art, visible := range map[string]bool{ownArt: true, sharedArt: true, hiddenArt: c.name != "agent"} {
					p := call("mempalace_artifact_get", `{"artifact_id":"`+art+`"}`)
					if visible != (p["artifact"] != nil) {
						t.Errorf("artifact_get %s: %v (visible: %v)", art, p, visible)
					}
					if !visible && p["error"] != "artifact '"+art+"' not found" {
						t.Errorf("a hidden artifact must read as missing: %v", p)
					}
				}
				p := call("mempalace_mesh_peers", `{}`)
				if c.name == "agent" {
					if msg, _ := p["error"].(string); !strings.HasPrefix(msg, "mempalace_mesh_peers needs an admin token") || len(p) != 1 {
						t.Errorf("mesh_peers for an agent token: %v", p)
					}
				} else if p["error"] != nil {
					t.Errorf("mesh_peers: %v", p)
				}
			})
		}
	}
}

// tkSameAsHTTP requires the HTTP route's answer to be the tool's
// payload, but for the asks' ages, which move with the clock.
func tkSameAsHTTP(t *testing.T, n *Node, token, meta, tool, args, route string) {
	t.Helper()
	var fromTool, fromHTTP map[string]any
	if err := json.Unmarshal([]byte(tkCall(t, n, token, meta, tool, args).Text(t)), &fromTool); err != nil {
		t.Fatal(err)
	}
	r := nodetest.Get(t, n, route, token)
	if err := json.Unmarshal([]byte(r.Body), &fromHTTP); err != nil || r.Status != http.StatusOK {
		t.Fatalf("%s: %d %s %v", route, r.Status, r.Body, err)
	}
	for _, p := range []map[string]any{fromTool, fromHTTP} {
		asks, _ := p["asks"].([]any)
		for _, a := range asks {
			delete(a.(map[string]any), "age_s")
		}
	}
	if !reflect.DeepEqual(fromTool, fromHTTP) {
		t.Errorf("%s answers\n%v\n%s answers\n%v", route, fromHTTP, tool, fromTool)
	}
}

// A scoped event_wait is not woken by events it may not see, and returns
// only the one it may.
func TestTokens_WaitDoesNotWakeOnHiddenEvents(t *testing.T) {
	n := tkStart(t, tkFile)
	start := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "pi@laptop"})
	nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "eve"})
	p := tkCall(t, n, tkAgent, "", "mempalace_event_wait", `{"since_event_id":"`+start.ID+`","timeout_ms":200}`).Payload(t)
	if p["timed_out"] != true || p["count"].(json.Number).String() != "0" {
		t.Fatalf("wait over a hidden event: %v, want a timeout", p)
	}
	done := make(chan map[string]any, 1)
	go func() {
		done <- tkCall(t, n, tkAgent, "", "mempalace_event_wait", `{"since_event_id":"`+start.ID+`","timeout_ms":60000}`).Payload(t)
	}()
	// Hidden commits arrive (before or while the wait runs: either way it
	// must not answer with them, nor early with nothing); then the visible one.
	for range 3 {
		nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "eve"})
	}
	visible := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "pi-2"})
	got := <-done
	evs := got["events"].([]any)
	if got["timed_out"] != false || len(evs) != 1 || evs[0].(map[string]any)["id"] != visible.ID {
		t.Fatalf("wait woke with %v, want only %s", got, visible.ID)
	}
}

// A scoped SSE stream never sends an event outside the scope.
func TestTokens_StreamFiltered(t *testing.T) {
	n := tkStart(t, tkFile)
	s := nodetest.OpenStream(t, n, "", map[string]string{"Authorization": "Bearer " + tkAgent})
	nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "eve"})
	nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "eve", ToAgent: "boss", Stream: "private/eve"})
	mine := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "pi@laptop"})
	if f := s.NextEvent(t); f.ID != mine.ID {
		t.Fatalf("stream sent %s first, want %s (the hidden events must be skipped)", f.ID, mine.ID)
	}
	admin := nodetest.OpenStream(t, n, "?since_event_id="+mine.ID, map[string]string{"Authorization": "Bearer " + tkAdmin})
	last := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "eve"})
	if f := admin.NextEvent(t); f.ID != last.ID {
		t.Fatalf("admin stream sent %s, want %s", f.ID, last.ID)
	}
}

// Without the shared token the file alone guards the node; an empty
// table refuses every token rather than opening the node.
func TestTokens_FileAloneAndEmptyTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(path, []byte(`{"tokens": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	n := htStart(t, func(c *Config) { c.Auth.TokensFile = path })
	for _, tok := range []string{"", nodetest.SharedToken, "x"} {
		if r := nodetest.Get(t, n, "/logstream/events", tok); r.Status != http.StatusUnauthorized {
			t.Fatalf("token %q on an empty table: %d", tok, r.Status)
		}
	}
	if err := os.WriteFile(path, []byte(`{"tokens": [{"token": "`+tkAgent+`", "write_as": ["pi@laptop"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := n.ReloadTokens(); err != nil {
		t.Fatal(err)
	}
	if r := nodetest.Get(t, n, "/logstream/events", tkAgent); r.Status != 200 {
		t.Fatalf("after reload: %d %s", r.Status, r.Body)
	}
	if r := nodetest.Get(t, n, "/metrics", tkAgent); r.Status != http.StatusForbidden {
		t.Fatalf("an unnamed agent token on /metrics: %d", r.Status)
	}
}

func TestTokens_ReloadKeepsTableOnError(t *testing.T) {
	n := tkStart(t, tkFile)
	path := n.cfg.Auth.TokensFile
	for _, bad := range []string{`{"tokens": [`, `{"tokens": [{"token": ""}]}`, `{"tokens": [{"token": "` + nodetest.SharedToken + `"}]}`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := n.ReloadTokens(); err == nil {
			t.Fatalf("reload of %s succeeded", bad)
		}
		if r := nodetest.Get(t, n, "/logstream/events", tkAgent); r.Status != 200 {
			t.Fatalf("after a failed reload the old token stopped working: %d", r.Status)
		}
	}
}

func TestTokens_BadFileRefusedAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(path, []byte(`{"tokens": [{"token": "a", "name": "pi", "write_as": ["pi-["]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.DataDir, cfg.Auth.TokensFile = t.TempDir(), path
	_, err := New(cfg)
	if err == nil || !strings.Contains(err.Error(), `tokens[0] ("pi"): write_as[0] "pi-["`) {
		t.Fatalf("New: %v", err)
	}
}

// A non-loopback bind is allowed with a tokens file and no shared token.
func TestTokens_FileSatisfiesNonLoopbackBind(t *testing.T) {
	cfg := DefaultConfig()
	cfg.HTTP.Addr = "0.0.0.0:0"
	if err := cfg.Validate(); err != ErrInsecureBind {
		t.Fatalf("no token: %v", err)
	}
	cfg.Auth.TokensFile = "tokens.json"
	if err := cfg.Validate(); err != nil {
		t.Fatalf("with a tokens file: %v", err)
	}
}

// A scoped long poll of /logstream/events is not answered with events it
// may not see: over a hidden event it times out empty.
func TestTokens_LongPollFiltered(t *testing.T) {
	n := tkStart(t, tkFile)
	start := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "pi@laptop"})
	hidden := nodetest.Append(t, n.Store(), store.AppendInput{FromAgent: "boss", ToAgent: "eve"})
	path := "/logstream/events?since_event_id=" + start.ID + "&wait_ms=200"
	p := nodetest.JSON(t, nodetest.Get(t, n, path, tkAgent))
	if p["timed_out"] != true || p["count"] != float64(0) {
		t.Fatalf("agent long poll over a hidden event: %v", p)
	}
	p = nodetest.JSON(t, nodetest.Get(t, n, path, tkAdmin))
	evs, _ := p["events"].([]any)
	if p["timed_out"] != false || len(evs) != 1 || evs[0].(map[string]any)["id"] != hidden.ID {
		t.Fatalf("admin long poll: %v", p)
	}
}
