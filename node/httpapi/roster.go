package httpapi

import (
	"context"
	"runtime"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/syncwire"
)

// RosterFunc reports what this node knows of its peers. The surface calls
// it for every /sync/peers and /sync/version_vector answer, so it must be
// cheap and safe for concurrent use. The node supplies it from membership,
// replication and the HTTP pull; without one the roster is empty.
type RosterFunc func(ctx context.Context) Roster

// Roster is the estate of one node: its peers and what it learned of them.
type Roster struct {
	// Peers in configuration order.
	Peers []syncwire.EstatePeer
	// Profiles are node profiles learned from peers, keyed by replica id,
	// each a pyjson value (a peer's json.RawMessage as received). This
	// node's own profile is added by the node and always wins.
	Profiles map[string]any
	// SyncInterval is the period of the pull loop; 0 means no loop.
	SyncInterval time.Duration
	// InProcess is true when this process runs the replication that
	// produced the estate (always, once the replicator is wired in).
	InProcess bool
	// Lsnode is lsnode's extension (key "lsnode"); nil leaves it out.
	Lsnode *Estate
}

// selfProfile is this node's honest self-description for peers: it holds
// a full replica of the log, serves agents when it has authored events,
// and has no accelerator or drawers (lsnode has no vector store).
func (s *Server) selfProfile(vv map[string]int64) pyjson.Object {
	roles := []string{"replica"}
	if vv[s.store.ReplicaID()] > 0 {
		roles = append(roles, "agents")
	}
	return syncwire.Profile{
		Roles:        roles,
		Hardware:     runtime.GOOS + "/" + runtime.GOARCH + " lsnode " + s.cfg.Version,
		AdvertisedAt: s.wall.Now(),
	}.JSON()
}

// roster is the configured roster, or an empty one.
func (s *Server) roster(ctx context.Context) Roster {
	if s.cfg.Roster == nil {
		return Roster{}
	}
	return s.cfg.Roster(ctx)
}

// profiles merges the learned profiles with this node's own, which wins.
func (s *Server) profiles(r Roster, self pyjson.Object) map[string]any {
	out := make(map[string]any, len(r.Profiles)+1)
	for id, p := range r.Profiles {
		out[id] = p
	}
	out[s.store.ReplicaID()] = self
	return out
}

// PeersPayload is the /sync/peers answer (and mempalace_mesh_peers'
// result): self, peers, unnamed origins, origin profiles, the sync
// interval and where the estate came from. Peer tokens never appear.
func (s *Server) PeersPayload(ctx context.Context) pyjson.Object {
	r := s.roster(ctx)
	vv := s.store.VersionVector()
	self := s.selfProfile(vv)
	e := syncwire.Estate{
		ReplicaID: s.store.ReplicaID(), Name: s.name, Vector: vv, Profile: self,
		Peers: r.Peers, OriginProfiles: s.profiles(r, self), SyncInterval: r.SyncInterval, InProcess: r.InProcess,
	}
	if r.Lsnode != nil {
		e.Lsnode = r.Lsnode.payload()
	}
	return e.JSON()
}
