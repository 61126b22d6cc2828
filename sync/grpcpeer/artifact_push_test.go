package grpcpeer_test

import (
	"context"
	"testing"
	"time"

	"github.com/lsnode/lsnode/internal/testwait"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// TestGRPC_ArtifactPushedWithoutEvent: an artifact put on a node, named
// by no event, reaches its peer by push, both ways, between nodes that
// list each other (two sessions). Rounds are a minute apart, so the
// round frames' feed tops cannot be what brings it.
func TestGRPC_ArtifactPushedWithoutEvent(t *testing.T) {
	slowRounds := func(c *grpcpeer.Config) { c.SyncInterval = time.Minute }
	a, b := startNodeWith(t, "c1", 0, slowRounds), startNodeWith(t, "c1", 0, slowRounds)
	for _, pair := range [][2]*testNode{{a, b}, {b, a}} {
		if err := pair[0].rep.AddPeer(pair[1].addr); err != nil {
			t.Fatal(err)
		}
	}
	testwait.Until(t, 10*time.Second, "all four session ends following", func() bool {
		for _, n := range []*testNode{a, b} {
			p := n.rep.Peers()
			if len(p) != 2 || p[0].State != grpcpeer.StateFollowing || p[1].State != grpcpeer.StateFollowing {
				return false
			}
		}
		return true
	})
	ctx := context.Background()
	for _, pair := range [][2]*testNode{{a, b}, {b, a}} {
		from, to := pair[0], pair[1]
		w, err := from.st.PutArtifact(ctx, store.ArtifactInput{Kind: "note", Content: "from " + from.st.ReplicaID(), CreatedBy: "ana"})
		if err != nil {
			t.Fatal(err)
		}
		put := time.Now()
		testwait.Until(t, 5*time.Second, "the artifact on the peer", func() bool {
			got, err := to.st.GetArtifact(ctx, w.Artifact.ID)
			return err == nil && got.Content == w.Artifact.Content
		})
		t.Logf("%s -> %s: %s", from.st.ReplicaID(), to.st.ReplicaID(), time.Since(put))
	}
}
