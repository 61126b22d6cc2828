package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// faultyLog is a log whose writes return what the test sets, to reach the
// outcomes a healthy single store cannot produce.
type faultyLog struct {
	Store
	written store.Written
	err     error
}

func (f *faultyLog) Append(context.Context, store.AppendInput) (store.Written, error) {
	return f.written, f.err
}

func TestMCPStoreFailures(t *testing.T) {
	log := &faultyLog{}
	h := newMCPHarness(t, Options{Store: log})
	args := `{"type":"t","stream":"s","room":"r","from_agent":"a"}`

	log.err = errors.New("disk I/O error")
	r := h.call(toolEventAppend, args)
	if r.Error == nil || r.Error.Code != -32000 || r.Error.Message != "Internal tool error" ||
		string(r.Error.Data) != `{"error_class":"InternalError","message":"disk I/O error"}` {
		t.Fatalf("storage failure: %+v", r.Error)
	}

	log.err = store.ErrReadOnly
	if r := h.call(toolEventAppend, args); r.Error == nil || r.Error.Code != -32003 || string(r.Error.Data) != `{"tool":"mempalace_event_append"}` {
		t.Fatalf("read-only store: %+v", r.Error)
	}

	log.err = &store.ValidationError{Msg: "since_event_id 'x' not found", Kind: store.ErrCursorNotHeld}
	if p := h.call(toolEventAppend, args).Payload(t); p["success"] != false || p["error"] != "since_event_id 'x' not found" {
		t.Fatalf("store validation error: %v", p)
	}

	log.err = nil
	log.written = store.Written{Event: store.Event{ID: "evt_1", FromAgent: "a"}, Duplicate: true, SharedName: []string{"rep_b", "rep_c"}}
	r = h.call(toolEventAppend, args)
	if keys := r.Keys(t); strings.Join(keys, " ") != "success event duplicate warnings" {
		t.Fatalf("keys %v", keys)
	}
	warnings := r.Payload(t)["warnings"].([]any)
	if len(warnings) != 1 || warnings[0] != sharedNameWarning("a", []string{"rep_b", "rep_c"}) ||
		!strings.HasPrefix(warnings[0].(string), "from_agent 'a' is also writing through rep_b, rep_c;") {
		t.Fatalf("warnings %v", warnings)
	}

	for _, outcome := range []string{outcomeInternal, outcomeReadOnly, outcomeFailed, outcomeOK} {
		if n := callCount(t, h, toolEventAppend, outcome); n != 1 {
			t.Errorf("result %q counted %v times, want 1", outcome, n)
		}
	}
}

func TestMCPCallMetrics(t *testing.T) {
	h := newMCPHarness(t, Options{})
	h.call(toolEventList, `{}`)
	h.call(toolEventList, `{"limit":0}`)
	h.call(toolEventList, `{"bogus":1}`)
	for outcome, want := range map[string]float64{outcomeOK: 1, outcomeFailed: 1, outcomeInvalid: 1} {
		if got := callCount(t, h, toolEventList, outcome); got != want {
			t.Errorf("%s: %v, want %v", outcome, got, want)
		}
	}
	families, err := h.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "lsnode_mcp_call_duration_seconds" && f.GetMetric()[0].GetHistogram().GetSampleCount() == 3 {
			return
		}
	}
	t.Fatal("lsnode_mcp_call_duration_seconds did not observe the three calls")
}

// TestMCPToolPanicIsInternalToolError: a tool that fails in an unforeseen
// way (here a store method the fake lacks) answers the hub's -32000
// "Internal tool error" like any other handler failure, instead of the
// connection dropping.
func TestMCPToolPanicIsInternalToolError(t *testing.T) {
	h := newMCPHarness(t, Options{Store: &faultyLog{}})
	for _, id := range []string{`7`, `1.5`} {
		status, _, out := h.post(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"mempalace_event_list","arguments":{}}}`)
		var r nodetest.RPCReply
		if status != 200 || json.Unmarshal(out, &r) != nil || string(r.ID) != id || r.Error == nil ||
			r.Error.Code != -32000 || r.Error.Message != "Internal tool error" {
			t.Fatalf("id %s: %d %s", id, status, out)
		}
	}
}
