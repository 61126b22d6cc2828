package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/node/sseclient"
	"github.com/lsnode/lsnode/store"
)

// scopedLog is the log of the scope tests: pi@laptop (the agent token's
// mailbox) is asked once and asks once; alice and bob talk in a stream
// pi cannot read.
func scopedLog(t *testing.T, st *store.Store) (piAsk, bobAsk store.Event) {
	t.Helper()
	piAsk = nodetest.Append(t, st, ask("alice", "pi@laptop", "project/shared", "thr-pi"))
	nodetest.Append(t, st, ask("pi@laptop", "alice", "project/shared", "thr-pi-out"))
	bobAsk = nodetest.Append(t, st, ask("alice", "bob", "project/private", "thr-bob"))
	return piAsk, bobAsk
}

func TestConsole_AgentTokenReadsItsScopeOnly(t *testing.T) {
	s := csStart(t, csOptions{})
	piAsk, bobAsk := scopedLog(t, s.store)
	pi := s.browser(t)
	pi.mustSignIn(nodetest.AgentToken)

	agents := decode[struct{ Agents []agentRow }](t, pi.get("/ui/api/agents"))
	if len(agents.Agents) != 1 || agents.Agents[0].Agent != "pi@laptop" || agents.Agents[0].Owed != 1 {
		t.Fatalf("pi's roster: %+v; want pi@laptop alone, owing 1", agents.Agents)
	}
	bob := decode[agentPage](t, pi.get("/ui/api/agent?name=bob"))
	if len(bob.Owed) != 0 || len(bob.Recent) != 0 {
		t.Fatalf("pi sees bob's mailbox: %+v", bob)
	}
	own := decode[agentPage](t, pi.get("/ui/api/agent?name=pi@laptop"))
	if len(own.Owed) != 1 || own.Owed[0].ID != piAsk.ID {
		t.Fatalf("pi's owed: %+v", own.Owed)
	}
	if th := decode[threadPage](t, pi.get("/ui/api/thread?id=thr-bob")); len(th.Events) != 0 {
		t.Fatalf("pi sees alice and bob's thread: %+v", th.Events)
	}
	if th := decode[threadPage](t, pi.get("/ui/api/thread?id="+bobAsk.ID)); len(th.Events) != 0 {
		t.Fatalf("pi sees alice's ask to bob by its id: %+v", th.Events)
	}
	streams := decode[struct{ Streams []struct{ Stream string } }](t, pi.get("/ui/api/streams"))
	if len(streams.Streams) != 1 || streams.Streams[0].Stream != "project/shared" {
		t.Fatalf("pi's streams: %+v", streams.Streams)
	}
	if page := decode[struct{ Events []store.Event }](t, pi.get("/ui/api/events?stream=project/private")); len(page.Events) != 0 {
		t.Fatalf("pi lists the private stream: %+v", page.Events)
	}
	if resp := pi.get("/ui/api/mesh"); resp.Status != http.StatusForbidden {
		t.Fatalf("pi's mesh view: %d; want 403", resp.Status)
	}
	info := decode[sessionInfo](t, pi.get("/ui/api/session"))
	if info.Admin || info.Read == nil || strings.Join(info.WriteAs, ",") != "pi@laptop,pi-*" {
		t.Fatalf("pi's session: %+v", info)
	}

	// The admin sees everything.
	ops := s.browser(t)
	ops.mustSignIn(nodetest.AdminToken)
	if th := decode[threadPage](t, ops.get("/ui/api/thread?id=thr-bob")); len(th.Events) != 1 || th.Events[0].ID != bobAsk.ID {
		t.Fatalf("the admin's thread: %+v", th.Events)
	}
	if resp := ops.get("/ui/api/mesh"); resp.Status != http.StatusOK {
		t.Fatalf("the admin's mesh view: %d %s", resp.Status, resp.Body)
	}
}

func TestConsole_ComposeKeepsWriteAs(t *testing.T) {
	s := csStart(t, csOptions{})
	pi := s.browser(t)
	pi.mustSignIn(nodetest.AgentToken)
	args := map[string]any{"type": "task.request", "stream": "s", "room": "r", "to_agent": "alice", "body": "hi", "status": "open"}
	args["from_agent"] = "bob"
	resp := pi.compose("event_append", args, nil)
	if resp.Status != http.StatusBadRequest || !strings.Contains(resp.Body, "is not a name") || eventCount(t, s.store) != 0 {
		t.Fatalf("writing as bob: %d %s, %d events", resp.Status, resp.Body, eventCount(t, s.store))
	}
	if resp := pi.compose("artifact_put", map[string]any{}, nil); resp.Status != http.StatusBadRequest {
		t.Fatalf("another tool: %d %s", resp.Status, resp.Body)
	}
	args["from_agent"] = "pi@laptop"
	resp = pi.compose("event_append", args, nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("writing as pi@laptop: %d %s", resp.Status, resp.Body)
	}
	var out struct {
		Success bool
		Event   struct{ ID string }
	}
	if err := json.Unmarshal([]byte(resp.Body), &out); err != nil || !out.Success {
		t.Fatalf("compose answer %s: %v", resp.Body, err)
	}
	ack := pi.compose("event_ack", map[string]any{"event_id": out.Event.ID, "from_agent": "pi-7", "status": "applied"}, nil)
	if ack.Status != http.StatusOK || eventCount(t, s.store) != 2 {
		t.Fatalf("ack: %d %s", ack.Status, ack.Body)
	}
}

func TestConsole_ThreadShowsPatchWithWarnings(t *testing.T) {
	s := csStart(t, csOptions{})
	root := nodetest.Append(t, s.store, store.AppendInput{Type: "task.request", Stream: "p", Room: "r", FromAgent: "alice",
		ToAgent: "bob", Status: "open", Body: "fix it"})
	w, err := s.store.PatchSubmit(context.Background(), store.PatchInput{FromAgent: "bob", Stream: "p", CorrelationID: root.ID,
		Content: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b"})
	if err != nil {
		t.Fatal(err)
	}
	b := s.browser(t)
	b.mustSignIn(nodetest.SharedToken)
	th := decode[threadPage](t, b.get("/ui/api/thread?id="+root.ID))
	if len(th.Events) != 2 || th.Events[0].ID != root.ID || th.Events[1].ID != w.Event.ID {
		t.Fatalf("thread of an ask without a correlation id: %+v", th.Events)
	}
	art := th.Artifacts[w.Artifact.ID]
	if art.Kind != "patch" || !strings.HasPrefix(art.Content, "--- a/x") || len(art.Warnings) != 1 ||
		!strings.Contains(art.Warnings[0], "trailing newline") {
		t.Fatalf("patch artifact: %+v", art)
	}
}

// TestConsole_ThreadHidesArtifactsOutsideTheScope opens a thread that
// pi's token reads in part: the ask to pi and pi's patch, not bob's patch
// to alice in the same thread. pi's page carries its own patch and none
// of bob's content; the shared token's carries both.
func TestConsole_ThreadHidesArtifactsOutsideTheScope(t *testing.T) {
	s := csStart(t, csOptions{})
	ctx := context.Background()
	root := nodetest.Append(t, s.store, store.AppendInput{Type: "task.request", Stream: "p", Room: "r", FromAgent: "alice",
		ToAgent: "pi@laptop", Status: "open", Body: "fix it", CorrelationID: "thr-art"})
	patch := func(from, content string) store.Written {
		w, err := s.store.PatchSubmit(ctx, store.PatchInput{FromAgent: from, ToAgent: "alice", Stream: "p", CorrelationID: "thr-art",
			Content: content})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	bobs := patch("bob", "--- a/secret\n+++ b/secret\n@@ -1 +1 @@\n-a\n+bob's secret\n")
	pis := patch("pi@laptop", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")

	pi := s.browser(t)
	pi.mustSignIn(nodetest.AgentToken)
	resp := pi.get("/ui/api/thread?id=thr-art")
	th := decode[threadPage](t, resp)
	if len(th.Events) != 2 || th.Events[0].ID != root.ID || th.Events[1].ID != pis.Event.ID {
		t.Fatalf("pi's thread: %+v; want the ask and pi's patch", th.Events)
	}
	if _, ok := th.Artifacts[pis.Artifact.ID]; !ok || len(th.Artifacts) != 1 {
		t.Fatalf("pi's thread artifacts: %v; want pi's patch alone", th.Artifacts)
	}
	if strings.Contains(resp.Body, bobs.Artifact.ID) || strings.Contains(resp.Body, "bob's secret") {
		t.Fatalf("pi's thread page names bob's artifact or its content: %s", resp.Body)
	}

	ops := s.browser(t)
	ops.mustSignIn(nodetest.SharedToken)
	all := decode[threadPage](t, ops.get("/ui/api/thread?id=thr-art"))
	if _, ok := all.Artifacts[bobs.Artifact.ID]; !ok || len(all.Events) != 3 || len(all.Artifacts) != 2 {
		t.Fatalf("the shared token's thread: %d events, artifacts %v; want 3 and both patches", len(all.Events), all.Artifacts)
	}
}

// awaitingStore is a log with the awaiting view: every event an agent
// wrote is "awaited", enough to show that the console passes the view
// through with the caller's scope.
type awaitingStore struct {
	*store.Store
	scopes []*store.ReadScope
}

func (a *awaitingStore) Awaiting(ctx context.Context, q store.AwaitingQuery) ([]store.Awaited, error) {
	a.scopes = append(a.scopes, q.Scope)
	page, err := a.List(ctx, store.Filter{Writer: q.Agent, Limit: q.Limit, Scope: q.Scope})
	asks := make([]store.Awaited, len(page.Events))
	for i, e := range page.Events {
		asks[i] = store.Awaited{Ask: store.Ask{Event: e}}
	}
	return asks, err
}

// withoutAwaiting hides the store's awaiting view: a log the console
// must report awaiting as unavailable for.
type withoutAwaiting struct{ ConsoleLog }

func TestConsole_AwaitingHook(t *testing.T) {
	real := csStart(t, csOptions{})
	nodetest.Append(t, real.store, ask("alice", "bob", "s", "t1"))
	rb := real.browser(t)
	rb.mustSignIn(nodetest.SharedToken)
	if rows := decode[struct{ Agents []agentRow }](t, rb.get("/ui/api/agents")).Agents; len(rows) != 1 || rows[0].Awaiting == nil || *rows[0].Awaiting != 1 {
		t.Fatalf("the store's awaiting view: %+v", rows)
	}
	if page := decode[agentPage](t, rb.get("/ui/api/agent?name=alice")); len(page.Awaiting) != 1 {
		t.Fatalf("agent page of the store's view: %+v", page)
	}

	plain := csStart(t, csOptions{store: func(st *store.Store) ConsoleLog { return withoutAwaiting{st} }})
	nodetest.Append(t, plain.store, ask("alice", "bob", "s", "t1"))
	b := plain.browser(t)
	b.mustSignIn(nodetest.SharedToken)
	if resp := b.get("/ui/api/agents"); !strings.Contains(resp.Body, `"awaiting":null`) || !strings.Contains(resp.Body, `"awaiting_available":false`) {
		t.Fatalf("without the view: %s", resp.Body)
	}
	if resp := b.get("/ui/api/agent?name=alice"); !strings.Contains(resp.Body, `"awaiting":null`) {
		t.Fatalf("agent page without the view: %s", resp.Body)
	}

	var with *awaitingStore
	s := csStart(t, csOptions{store: func(st *store.Store) ConsoleLog { with = &awaitingStore{Store: st}; return with }})
	nodetest.Append(t, s.store, ask("alice", "bob", "s", "t1"))
	b = s.browser(t)
	b.mustSignIn(nodetest.SharedToken)
	rows := decode[struct{ Agents []agentRow }](t, b.get("/ui/api/agents")).Agents
	if len(rows) != 1 || rows[0].Awaiting == nil || *rows[0].Awaiting != 1 {
		t.Fatalf("with the view: %+v", rows)
	}
	if page := decode[agentPage](t, b.get("/ui/api/agent?name=alice")); len(page.Awaiting) != 1 {
		t.Fatalf("agent page with the view: %+v", page)
	}
	pi := s.browser(t)
	pi.mustSignIn(nodetest.AgentToken)
	pi.get("/ui/api/agent?name=alice")
	if last := with.scopes[len(with.scopes)-1]; last == nil || len(last.Agents) == 0 {
		t.Fatalf("the view was read without the agent token's scope: %+v", last)
	}
}

func TestConsole_MeshHistorySampledOnRequest(t *testing.T) {
	s := csStart(t, csOptions{})
	b := s.browser(t)
	b.mustSignIn(nodetest.SharedToken)
	get := func(since int64) meshPage {
		return decode[meshPage](t, b.get("/ui/api/mesh?since="+strconv.FormatInt(since, 10)))
	}
	first := get(0)
	if len(first.History.Samples) != 1 || len(first.Members) != 1 || !first.Members[0].Self || !first.Ready {
		t.Fatalf("first mesh page: %+v", first)
	}
	if again := get(0); len(again.History.Samples) != 1 {
		t.Fatalf("a second request within a step sampled again: %d samples", len(again.History.Samples))
	}
	s.wall.Advance(lagHistoryStep)
	if next := get(first.History.Samples[0].AtMS); len(next.History.Samples) != 1 || next.History.Samples[0].AtMS <= first.History.Samples[0].AtMS {
		t.Fatalf("samples after the first: %+v", next.History.Samples)
	}
	s.wall.Advance(lagHistoryWindow + time.Second)
	if late := get(0); len(late.History.Samples) != 1 {
		t.Fatalf("samples older than the window kept: %d", len(late.History.Samples))
	}
	if resp := b.get("/ui/api/mesh?since=soon"); resp.Status != http.StatusBadRequest {
		t.Fatalf("bad since: %d", resp.Status)
	}
}

func TestConsole_TailKeepsScope(t *testing.T) {
	s := csStart(t, csOptions{})
	pi := s.browser(t)
	pi.mustSignIn(nodetest.AgentToken)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/ui/api/tail", nil)
	resp, err := pi.hc.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("tail: %d %v", resp.StatusCode, resp.Header)
	}
	_, bobAsk := scopedLog(t, s.store)
	mine := nodetest.Append(t, s.store, ask("alice", "pi@laptop", "project/shared", "thr-2"))
	rd := sseclient.NewReader(resp.Body)
	var seen []string
	for len(seen) == 0 || seen[len(seen)-1] != mine.ID {
		f, err := rd.Next()
		if err != nil {
			t.Fatalf("tail after %v: %v", seen, err)
		}
		if f.ID != "" {
			seen = append(seen, f.ID)
		}
	}
	for _, id := range seen {
		if id == bobAsk.ID {
			t.Fatalf("pi's tail carried alice's ask to bob: %v", seen)
		}
	}
	if len(seen) != 3 { // pi's ask in, pi's ask out, and mine
		t.Fatalf("pi's tail: %v", seen)
	}

	// Sign-out ends the tail.
	pi.do(http.MethodPost, "/ui/api/signout", "{}", nil)
	for {
		if _, err := rd.Next(); err != nil {
			break
		}
	}
	if ctx.Err() != nil {
		t.Fatal("the tail outlived its session's sign-out")
	}
}
