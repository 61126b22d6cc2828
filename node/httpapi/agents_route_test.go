package httpapi

import (
	"context"
	"testing"

	"github.com/lsnode/lsnode/node/internal/nodetest"
	"github.com/lsnode/lsnode/store"
)

// TestAgentsRoute_ClaimConflicts: each roster row of /lsnode/agents
// carries claim_conflicts, the asks the agent owes and claimed through
// two replicas: w claimed boss's ask here and through a second replica.
func TestAgentsRoute_ClaimConflicts(t *testing.T) {
	n := htStart(t, nil)
	ctx := context.Background()
	here, there := n.Store(), nodetest.OpenStore(t)
	ask := nodetest.Append(t, here, store.AppendInput{FromAgent: "boss", ToAgent: "w", CorrelationID: "rel-1"})
	copyAll(t, here, there)
	for _, st := range []*store.Store{there, here} {
		if _, err := st.Ack(ctx, store.AckInput{EventID: ask.ID, FromAgent: "w", Status: "claimed"}); err != nil {
			t.Fatal(err)
		}
	}
	copyAll(t, there, here)

	rows, _ := nodetest.JSON(t, nodetest.Get(t, n, "/lsnode/agents", ""))["agents"].([]any)
	got := map[string]any{}
	for _, r := range rows {
		row := r.(map[string]any)
		got[row["agent"].(string)] = row["claim_conflicts"]
	}
	if want := map[string]any{"boss": 0.0, "w": 1.0}; len(got) != len(want) || got["boss"] != want["boss"] || got["w"] != want["w"] {
		t.Fatalf("claim_conflicts by agent %v; want %v", got, want)
	}
}

// copyAll applies to every op from holds and to lacks.
func copyAll(t *testing.T, from, to *store.Store) {
	t.Helper()
	for origin := range from.VersionVector() {
		ops, err := from.OpsAfter(context.Background(), origin, to.VersionVector()[origin], 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := to.ApplyBatch(context.Background(), store.Batch{Ops: ops}); err != nil || res.Applied != len(ops) {
			t.Fatalf("apply %d ops of %s: %+v, %v", len(ops), origin, res, err)
		}
	}
}
