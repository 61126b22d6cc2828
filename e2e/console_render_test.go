//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/store"
)

// csRenderTarget is the console's target: every page draws its data
// within a second of the navigation, on loopback, however large the log.
const csRenderTarget = time.Second

// csRenderOrigin is the origin of the large log's events.
const csRenderOrigin = "rep_c0501e000000000000000000000000aa"

// csFleetLog writes n events of a fleet into a store in dir: 32 agents
// in 8 streams, in threads of an ask, a claim and (for three threads in
// four) an applied answer, so that owed asks, long rosters and long
// streams all exist. It returns a thread and an agent to open.
func csFleetLog(t *testing.T, dir string, n int) (thread, agent string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, store.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	base := time.Now().Add(-24 * time.Hour)
	const per = 2000
	start := time.Now()
	for first := 1; first <= n; first += per {
		var b store.Batch
		for seq := first; seq < first+per && seq <= n; seq++ {
			th := (seq - 1) / 3
			asker, doer := fmt.Sprintf("agent-%d", th%32), fmt.Sprintf("agent-%d", (th+7)%32)
			from, to, status, typ := asker, doer, "open", "task.request"
			switch (seq - 1) % 3 {
			case 1:
				from, to, status, typ = doer, asker, "claimed", "task.reply"
			case 2:
				from, to, status, typ = doer, asker, "applied", "task.reply"
				if th%4 == 0 {
					status = "ready" // not terminal: the ask stays owed
				}
			}
			wall := base.Add(time.Duration(seq) * 50 * time.Millisecond)
			ts := hlc.Timestamp{WallMS: wall.UnixMilli(), Replica: csRenderOrigin}
			b.Ops = append(b.Ops, store.Op{Event: store.Event{
				ID: fmt.Sprintf("evt_%s_%012x", wall.UTC().Format("20060102T150405"), seq), OriginReplica: csRenderOrigin,
				OriginSeq: int64(seq), HLC: ts.String(), Type: typ, Stream: fmt.Sprintf("project/%d", th%8), Room: "work",
				FromAgent: from, ToAgent: to, CorrelationID: fmt.Sprintf("thr-%d", th), Status: status,
				Body:      fmt.Sprintf("step %d of thread %d: %060d", (seq-1)%3, th, seq),
				CreatedAt: wall.UTC().Format("2006-01-02T15:04:05Z"), Metadata: json.RawMessage("{}"),
			}, PrevSeq: int64(seq - 1)})
		}
		if res, err := st.ApplyBatch(ctx, b); err != nil || res.Applied != len(b.Ops) {
			t.Fatalf("fill at %d: %+v %v", first, res, err)
		}
	}
	t.Logf("wrote %d events in %v", n, time.Since(start).Round(time.Millisecond))
	last := (n - 1) / 3
	return "thr-" + strconv.Itoa(last-last%4), "agent-7" // a thread whose ask is still owed
}

// csRenderAgentToken is the agent token of the render test: agent-7's,
// whose read scope is its own mailbox and the broadcasts.
const csRenderAgentToken = "console-token-agent-7"

// TestConsole_PagesRenderFastOnALargeLog times every page of the console
// on a node holding LSNODE_E2E_CONSOLE_EVENTS events (default 20,000):
// from the start of a full navigation (the browser's performance clock)
// to the moment the page has drawn its data, which must be within
// csRenderTarget in both rounds (the first with cold caches) and both for
// the shared token and for an agent token, whose pages read through its
// scope. Pages are paged, never the whole log. The figures of
// docs/benchmarks.md ("Console") come from a 1M-event log:
//
//	make build && LSNODE_BIN=$PWD/bin/lsnode LSNODE_E2E_CONSOLE_EVENTS=1000000 \
//	  go test -tags e2e -count=1 -run TestConsole_PagesRenderFastOnALargeLog -v -timeout 30m ./e2e/
func TestConsole_PagesRenderFastOnALargeLog(t *testing.T) {
	b := newBrowser(t)
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("LSNODE_E2E_CONSOLE_EVENTS")); err == nil && v > 0 {
		n = v
	}
	dir := t.TempDir()
	thread, agent := csFleetLog(t, dir, n)
	tokens := filepath.Join(t.TempDir(), "tokens.json")
	body := fmt.Sprintf(`{"tokens": [{"token": %q, "name": %q, "write_as": [%q]}]}`, csRenderAgentToken, agent, agent)
	if err := os.WriteFile(tokens, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startLsnode(t, nodeOptions{DataDir: dir, Token: csShared, Args: []string{"--tokens-file", tokens}})
	tb := b.tab()
	tb.open(p.URL + "/ui/")
	pages := []struct{ hash, page string }{
		{"#/mesh", "mesh"}, {"#/agents", "agents"}, {"#/agent/" + agent, "agent"}, {"#/streams", "streams"},
		{"#/stream/project%2F3", "stream"}, {"#/thread/" + thread, "thread"}, {"#/tail", "tail"}, {"#/compose", "compose"},
	}
	for _, who := range []struct{ name, token, home string }{{"shared", csShared, "mesh"}, {agent, csRenderAgentToken, "compose"}} {
		tb.signIn(who.token)
		tb.waitPage(who.home)
		for round := range 2 { // the first round meets the node's caches and the browser's cold
			var report []string
			for i, pg := range pages {
				if pg.page == "mesh" && who.token != csShared {
					continue // admin only
				}
				tb.open(fmt.Sprintf("%s/ui/?load=%s-%d-%d%s", p.URL, who.name, round, i, pg.hash))
				tb.waitPage(pg.page)
				ready := eval[int](tb, `+document.body.dataset.readyAt`)
				dcl := eval[float64](tb, `performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd`)
				report = append(report, fmt.Sprintf("%-8s data drawn %4d ms (DOMContentLoaded %4.0f ms)", pg.page, ready, dcl))
				if shown := eval[int](tb, `Math.max(0, ...[...document.querySelectorAll(".ev-list")].map(l => l.querySelectorAll(".ev").length))`); shown > 50 {
					t.Errorf("%s shows %d events in one list: a list holds 50 at most", pg.page, shown)
				}
				if time.Duration(ready)*time.Millisecond > csRenderTarget {
					t.Errorf("%s token, round %d: %s drew its data %d ms after the navigation on a %d-event log; target %v",
						who.name, round, pg.page, ready, n, csRenderTarget)
				}
			}
			t.Logf("%s token, round %d (%s), %d events:\n%s", who.name, round, []string{"cold", "warm"}[round], n, strings.Join(report, "\n"))
		}
		tb.signOut()
	}
}
