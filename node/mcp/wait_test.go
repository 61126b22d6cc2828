package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// waitProbe reports each Wait call, with its timeout, as it enters the
// store, and the time it returns (when nobody has taken the previous one,
// it is dropped).
type waitProbe struct {
	Store
	entered  chan time.Duration
	returned chan time.Time
}

func (p *waitProbe) Wait(ctx context.Context, f store.Filter, timeout time.Duration) (store.ListResult, bool, error) {
	p.entered <- timeout
	res, timedOut, err := p.Store.Wait(ctx, f, timeout)
	select {
	case p.returned <- time.Now():
	default:
	}
	return res, timedOut, err
}

func newProbedHarness(t testing.TB, opts Options) (*mcpHarness, *waitProbe) {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	probe := &waitProbe{Store: st, entered: make(chan time.Duration, 1), returned: make(chan time.Time, 1)}
	opts.Store = probe
	h := newMCPHarness(t, opts)
	h.store = st
	return h, probe
}

// TestMCPWaitWokenByAppend: a wait blocked in the store returns the event
// a concurrent append commits, well before its timeout.
func TestMCPWaitWokenByAppend(t *testing.T) {
	h, probe := newProbedHarness(t, Options{})
	first := h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a"}`)
	done := make(chan nodetest.RPCReply, 1)
	go func() {
		done <- h.call(toolEventWait, `{"stream":"s","since_event_id":"`+first["id"].(string)+`","timeout_ms":60000,"from_agent":"b"}`)
	}()
	<-probe.entered
	start := time.Now()
	second := h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"wake"}`)
	var r nodetest.RPCReply
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("event_wait was not woken by the append")
	}
	t.Logf("woken %v after the append started", time.Since(start))
	p := r.Payload(t)
	events := p["events"].([]any)
	if p["timed_out"] != false || len(events) != 1 || events[0].(map[string]any)["id"] != second["id"] || p["note"] != fromAgentNote {
		t.Fatalf("wait result %v", p)
	}
	if keys := r.Keys(t); strings.Join(keys, " ") != "timed_out events count cursor note" {
		t.Fatalf("wait keys %v", keys)
	}
}

func TestMCPWaitTimeout(t *testing.T) {
	h := newMCPHarness(t, Options{})
	h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a"}`)
	for _, args := range []string{`{"stream":"other","timeout_ms":0}`, `{"stream":"other","timeout_ms":30}`, `{"stream":"other","timeout_ms":1.9}`} {
		if text := h.call(toolEventWait, args).Text(t); text != "{\n  \"timed_out\": true,\n  \"events\": [],\n  \"count\": 0\n}" {
			t.Fatalf("%s: %q", args, text)
		}
	}
	// Without a cursor any existing match returns at once, oldest first.
	h.appendEvent(`{"type":"t","stream":"s","room":"r","from_agent":"a","body":"2"}`)
	p := h.call(toolEventWait, `{"stream":"s","timeout_ms":0}`).Payload(t)
	if events := p["events"].([]any); p["timed_out"] != false || len(events) != 2 || events[1].(map[string]any)["body"] != "2" {
		t.Fatalf("wait with history: %v", p)
	}
}

// TestMCPWaitDrain: a wait is capped at 5 minutes, and draining the node
// ends it as a timeout.
func TestMCPWaitDrain(t *testing.T) {
	drain, stop := context.WithCancel(context.Background())
	h, probe := newProbedHarness(t, Options{Drain: drain})
	done := make(chan nodetest.RPCReply, 1)
	go func() { done <- h.call(toolEventWait, `{"stream":"s","timeout_ms":86400000}`) }()
	if timeout := <-probe.entered; timeout != 300*time.Second {
		t.Errorf("timeout_ms 86400000 waits %v, want the 300 s cap", timeout)
	}
	stop()
	select {
	case r := <-done:
		if p := r.Payload(t); p["timed_out"] != true || p["count"] != json.Number("0") {
			t.Fatalf("drained wait: %v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("drain did not end the wait")
	}
}

// TestMCPWaitCallerGone: a client that hangs up frees its wait at once.
func TestMCPWaitCallerGone(t *testing.T) {
	h, probe := newProbedHarness(t, Options{})
	ctx, hangUp := context.WithCancel(context.Background())
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mempalace_event_wait","arguments":{"stream":"s","timeout_ms":300000}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-probe.entered
	hangUp()
	testwait.Until(t, 10*time.Second, "the abandoned wait to return", func() bool {
		return callCount(t, h, toolEventWait, outcomeOK) == 1
	})
}

// callCount reads lsnode_mcp_calls_total{tool, result}.
func callCount(t testing.TB, h *mcpHarness, tool, result string) float64 {
	t.Helper()
	families, err := h.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "lsnode_mcp_calls_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["tool"] == tool && labels["result"] == result {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestMCPWaitProgress: an event_wait with a progressToken, from a client
// that accepts an event stream, reports progress while it waits and then
// answers; without a token the same call reports none.
func TestMCPWaitProgress(t *testing.T) {
	h := newMCPHarness(t, Options{ProgressEvery: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var progress []float64
	client := gosdk.NewClient(&gosdk.Implementation{Name: "progress", Version: "1"}, &gosdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *gosdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params.Progress)
		},
	})
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		session, err := client.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1},
			&gosdk.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		for _, token := range []any{nil, "wait-1"} {
			mu.Lock()
			progress = nil
			mu.Unlock()
			params := &gosdk.CallToolParams{Name: toolEventWait, Arguments: map[string]any{"stream": "none", "timeout_ms": 300}}
			if token != nil {
				params.Meta = gosdk.Meta{"progressToken": token}
			}
			res, err := session.CallTool(ctx, params)
			if err != nil || res.IsError || !strings.Contains(res.Content[0].(*gosdk.TextContent).Text, `"timed_out": true`) {
				t.Fatalf("%s, token %v: %+v %v", version, token, res, err)
			}
			mu.Lock()
			got := slices.Clone(progress)
			mu.Unlock()
			if (token == nil) != (len(got) == 0) || !slices.IsSorted(got) {
				t.Fatalf("%s, token %v: progress %v", version, token, got)
			}
		}
		session.Close()
	}
}
