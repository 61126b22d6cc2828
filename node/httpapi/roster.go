package httpapi

import (
	"context"
	"runtime"
	"sort"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
)

// RosterFunc reports what this node knows of its peers. The surface calls
// it for every /sync/peers and /sync/version_vector answer, so it must be
// cheap and safe for concurrent use. The node supplies it from membership,
// replication and the HTTP pull; without one the roster is empty.
type RosterFunc func(ctx context.Context) Roster

// Roster is the estate of one node: its peers and what it learned of them.
type Roster struct {
	// Peers in configuration order.
	Peers []PeerState
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

// PeerState is one configured peer and the outcome of its last round,
// shaped like the Python hub's estate entry (mempalace-wire.md §3.9).
type PeerState struct {
	Name string
	URL  string
	// Synced is false for a peer never attempted yet: only name and url
	// are reported.
	Synced              bool
	ReplicaID           string // "" for unknown (null)
	Reachable           bool
	LastError           string    // "" for null
	LastErrorAt         time.Time // zero for null
	LastSuccessAt       time.Time // zero for null
	LastPulledEvents    int64     // reported after a success only
	LastPulledArtifacts int64     // reported after a success only
	RemoteVersionVector map[string]int64
	Profile             any // pyjson value; nil for null
}

// payload renders the peer in the Python key order.
func (p PeerState) payload() pyjson.Object {
	obj := pyjson.Object{{Key: "name", Value: p.Name}, {Key: "url", Value: p.URL}}
	if !p.Synced {
		return obj
	}
	obj = append(obj,
		pyjson.Member{Key: "replica_id", Value: nullable(p.ReplicaID)},
		pyjson.Member{Key: "reachable", Value: p.Reachable},
		pyjson.Member{Key: "last_error", Value: nullable(p.LastError)},
		pyjson.Member{Key: "last_error_at", Value: pytime.UTCOrNull(p.LastErrorAt)},
		pyjson.Member{Key: "last_success_at", Value: pytime.UTCOrNull(p.LastSuccessAt)})
	if p.Reachable {
		obj = append(obj,
			pyjson.Member{Key: "last_pulled_events", Value: p.LastPulledEvents},
			pyjson.Member{Key: "last_pulled_artifacts", Value: p.LastPulledArtifacts})
	}
	var vv any // null when never learned
	if p.RemoteVersionVector != nil {
		vv = p.RemoteVersionVector
	}
	return append(obj,
		pyjson.Member{Key: "remote_version_vector", Value: vv},
		pyjson.Member{Key: "profile", Value: p.Profile})
}

// nullable maps "" to JSON null.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// selfProfile is this node's honest self-description for peers: it holds
// a full replica of the log, serves agents when it has authored events,
// and has no accelerator or drawers (lsnode has no vector store).
func (s *Server) selfProfile(vv map[string]int64) pyjson.Object {
	roles := []any{"replica"}
	if vv[s.store.ReplicaID()] > 0 {
		roles = append(roles, "agents")
	}
	return pyjson.Object{
		{Key: "roles", Value: roles},
		{Key: "accelerator", Value: nil},
		{Key: "drawers", Value: nil},
		{Key: "hardware", Value: runtime.GOOS + "/" + runtime.GOARCH + " lsnode " + s.cfg.Version},
		{Key: "advertised_at", Value: pytime.UTC(s.wall.Now())},
	}
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
	named := map[string]bool{s.store.ReplicaID(): true}
	peers := make([]any, 0, len(r.Peers))
	for _, p := range r.Peers {
		if p.ReplicaID != "" {
			named[p.ReplicaID] = true
		}
		peers = append(peers, p.payload())
	}
	unnamed := []string{}
	for origin := range vv {
		if !named[origin] {
			unnamed = append(unnamed, origin)
		}
	}
	sort.Strings(unnamed)
	out := pyjson.Object{
		{Key: "self", Value: pyjson.Object{
			{Key: "replica_id", Value: s.store.ReplicaID()},
			{Key: "name", Value: s.name},
			{Key: "version_vector", Value: vv},
			{Key: "profile", Value: self},
		}},
		{Key: "peers", Value: peers},
		{Key: "unnamed_origins", Value: unnamed},
		{Key: "origin_profiles", Value: s.profiles(r, self)},
		{Key: "sync_interval_s", Value: r.SyncInterval.Seconds()},
		{Key: "estate_source", Value: pyjson.Object{
			{Key: "in_process", Value: r.InProcess},
			{Key: "published_at", Value: nil},
			{Key: "writer_alive", Value: r.InProcess},
		}},
	}
	if r.Lsnode != nil {
		out = append(out, pyjson.Member{Key: "lsnode", Value: r.Lsnode.payload()})
	}
	return out
}
