package node

import (
	"context"
	"fmt"
	"time"

	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/grpcpeer"
)

// Own-origin recovery after a restore that kept the backup's identity
// (docs/operations.md, "Restoring under the same identity"): the store
// refuses local writes and replication pulls the node's own origin from
// its peers; the node ends the recovery once every peer it can reach has
// finished a round with it and holds no op of its origin that it lacks.

// recoveryCheckEvery is how often a recovering node looks at its peers.
const recoveryCheckEvery = time.Second

// startRecovery watches the recovery of a store that recovers its own
// origin, until it ends or the node stops.
func (n *Node) startRecovery() {
	if !n.store.Recovering() {
		return
	}
	self := n.store.ReplicaID()
	if n.cluster == nil {
		n.log.Error("this node was restored under its own replica id and has no replication (--grpc and --peer or --join): it refuses local writes until it has pulled its origin back from a peer",
			"replica", self, "marker", store.RecoveryFile)
		return
	}
	n.log.Warn("restored under its own replica id: local writes are refused until every reachable peer's copy of this origin is held",
		"replica", self, "held", n.store.VersionVector()[self], "min_peers", n.recoverMinPeers())
	n.goFunc(func() { n.watchRecovery(n.run) })
}

func (n *Node) watchRecovery(ctx context.Context) {
	t := time.NewTicker(recoveryCheckEvery)
	defer t.Stop()
	self := n.store.ReplicaID()
	last := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ok, why := ownOriginRecovered(self, n.store.VersionVector()[self], n.cluster.rep.Peers(), n.recoverMinPeers())
		if !ok {
			if why != last {
				n.log.Info("recovering own origin", "replica", self, "waiting_for", why)
				last = why
			}
			continue
		}
		if err := n.store.EndRecovery(ctx); err != nil {
			n.log.Error("end own-origin recovery", "err", err)
			continue
		}
		return
	}
}

// ownOriginRecovered decides whether a node holding its own origin self
// up to held may number new ops: no peer is known to hold more of self,
// whatever the state of its session now (its last known vector counts: a
// session that dropped, now in backoff, says what that peer held), every
// peer with a session up has finished a round or pull with it (so its
// vector is known), and at least minPeers distinct peers (1 when less)
// did. A peer never heard from is not asked; docs/operations.md says what
// that leaves to the operator. It returns what it waits for when not.
func ownOriginRecovered(self string, held int64, peers []grpcpeer.PeerStatus, minPeers int) (bool, string) {
	for _, p := range peers {
		if has := p.PeerHas[self]; p.ReplicaID != "" && has > held {
			return false, fmt.Sprintf("ops %d-%d of this origin from peer %s (%s)", held+1, has, p.ReplicaID, p.State)
		}
	}
	synced := map[string]bool{}
	for _, p := range peers {
		if p.ReplicaID == "" || (p.State != grpcpeer.StateSyncing && p.State != grpcpeer.StateFollowing) {
			continue
		}
		if p.LastSync.IsZero() {
			return false, fmt.Sprintf("peer %s to finish a first round", p.ReplicaID)
		}
		synced[p.ReplicaID] = true
	}
	if want := max(minPeers, 1); len(synced) < want {
		return false, fmt.Sprintf("%d synced peer(s), %d so far", want, len(synced))
	}
	return true, ""
}

// recoverMinPeers is how many peers a recovering node waits for:
// RecoverMinPeers, or when 0 the number of static peers (at least 1).
func (n *Node) recoverMinPeers() int {
	if n.cfg.RecoverMinPeers > 0 {
		return n.cfg.RecoverMinPeers
	}
	return max(len(n.cfg.Replication.Peers), 1)
}
