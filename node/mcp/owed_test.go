package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/mcpdrive"
	"github.com/lsnode/lsnode/store"
)

const (
	owedRepA = "rep_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	owedRepB = "rep_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// openOwedReplica opens a store with replica id on wall.
func openOwedReplica(t *testing.T, replica string, wall hlc.WallClock) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), store.Config{Dir: t.TempDir(), ReplicaID: replica, Wall: wall})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// copyOps applies to to every op from holds that to lacks.
func copyOps(t *testing.T, from, to *store.Store) {
	t.Helper()
	for origin, top := range from.VersionVector() {
		after := to.VersionVector()[origin]
		if after >= top {
			continue
		}
		ops, err := from.OpsAfter(context.Background(), origin, after, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := to.ApplyBatch(context.Background(), store.Batch{Ops: ops}); err != nil || res.Applied != len(ops) {
			t.Fatalf("apply %s: %+v, %v", origin, res, err)
		}
	}
}

// owedClaim is what an owed event must say of its thread and claim.
type owedClaim struct {
	id, status          string
	claimedBy, fromRepl any // nil: unclaimed
	conflict            bool
}

// TestMCPOwedClaims: each event of an owed answer carries its claim as an
// awaited ask does - none, the earliest claim and the replica it came
// through, a conflict once the addressee claimed through two replicas -
// and the thread's status, after the event's other members, which are
// the event's record; the order and the limit are the owed set's. The
// structured content is the text and valid against the output schema.
func TestMCPOwedClaims(t *testing.T) {
	ctx := context.Background()
	wallA, wallB := hlc.NewManualClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)), hlc.NewManualClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	a, b := openOwedReplica(t, owedRepA, wallA), openOwedReplica(t, owedRepB, wallB)
	ask := func(thread string) string {
		t.Helper()
		wallA.Advance(time.Second)
		w, err := a.Append(ctx, store.AppendInput{Type: "task.request", Stream: "s", Room: "r", FromAgent: "boss", ToAgent: "w",
			CorrelationID: thread, Status: "open", Body: "do " + thread})
		if err != nil {
			t.Fatal(err)
		}
		return w.Event.ID
	}
	claim := func(st *store.Store, wall *hlc.ManualClock, id string) {
		t.Helper()
		wall.Advance(time.Second)
		if _, err := st.Ack(ctx, store.AckInput{EventID: id, FromAgent: "w", Status: "claimed"}); err != nil {
			t.Fatal(err)
		}
	}
	unclaimed, claimed, contested := ask("c1"), ask("c2"), ask("c3")
	claim(a, wallA, claimed)
	copyOps(t, a, b)
	claim(b, wallB, contested) // B's clock is behind A's: this is the earliest claim
	claim(a, wallA, contested)
	copyOps(t, b, a)
	wallA.Advance(time.Second)
	if _, err := a.Ack(ctx, store.AckInput{EventID: claimed, FromAgent: "w", Status: "ready"}); err != nil {
		t.Fatal(err)
	}

	h := newMCPHarness(t, Options{Store: a})
	structured := mcpdrive.NewRaw(h.url, "t", "2025-11-25")
	t.Cleanup(func() { structured.Close() })
	schema, err := eventOwedSpec().tool().OutputSchema.(*jsonschema.Schema).Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := structured.Call(ctx, toolEventList, map[string]any{"stream": "s", "limit": 50})
	if err != nil {
		t.Fatal(err)
	}
	var page struct{ Events []map[string]any }
	if err := json.Unmarshal([]byte(list.Text), &page); err != nil {
		t.Fatal(err)
	}
	records := map[string]map[string]any{}
	for _, e := range page.Events {
		records[e["id"].(string)] = e
	}

	first := owedClaim{id: unclaimed, status: "open"}
	second := owedClaim{id: claimed, status: "ready", claimedBy: "w", fromRepl: owedRepA}
	third := owedClaim{id: contested, status: "claimed", claimedBy: "w", fromRepl: owedRepB, conflict: true}
	for _, tc := range []struct {
		name string
		args map[string]any
		want []owedClaim
	}{
		{"unclaimed, claimed and contested, oldest first", map[string]any{"agent": "w"}, []owedClaim{first, second, third}},
		{"limit", map[string]any{"agent": "w", "limit": 2}, []owedClaim{first, second}},
		{"stream", map[string]any{"agent": "w", "stream": "s"}, []owedClaim{first, second, third}},
		{"another stream", map[string]any{"agent": "w", "stream": "other"}, nil},
		{"an agent owed nothing", map[string]any{"agent": "nobody"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := structured.Call(ctx, toolEventOwed, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			payload := mcpdrive.Check(t, schema, toolEventOwed, res)
			args, _ := json.Marshal(tc.args)
			if bare := h.call(toolEventOwed, string(args)).Text(t); bare != res.Text {
				t.Fatalf("the bare client's text\n%s\nthe structured client's\n%s", bare, res.Text)
			}
			events, _ := payload["events"].([]any)
			if len(events) != len(tc.want) || payload["count"] != float64(len(tc.want)) {
				t.Fatalf("%d events, count %v, want %d: %s", len(events), payload["count"], len(tc.want), res.Text)
			}
			for i, want := range tc.want {
				got := events[i].(map[string]any)
				if got["id"] != want.id || got["status"] != want.status || got["claimed_by"] != want.claimedBy ||
					got["claimed_from"] != want.fromRepl || got["claim_conflict"] != want.conflict {
					t.Errorf("event %d: %v, want %+v", i, got, want)
				}
				// The other members are the event's record, unchanged.
				rest := maps.Clone(got)
				record := maps.Clone(records[want.id])
				for _, k := range []string{"status", "claimed_by", "claimed_from", "claim_conflict"} {
					delete(rest, k)
				}
				delete(record, "status")
				if !reflect.DeepEqual(rest, record) {
					t.Errorf("event %d: %v, want the record %v", i, rest, record)
				}
			}
		})
	}
	// The claim's members follow the event's own, in this order.
	text := h.call(toolEventOwed, `{"agent":"w","limit":1}`).Text(t)
	at := -1
	for _, key := range []string{`"metadata": `, `"claimed_by": null,`, `"claimed_from": null,`, "\"claim_conflict\": false\n    }\n  ],"} {
		next := strings.Index(text, key)
		if next <= at {
			t.Fatalf("%s is not after the members before it:\n%s", key, text)
		}
		at = next
	}
}
