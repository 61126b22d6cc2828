package syncwire

import (
	"slices"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
)

// Estate is the answer of GET /sync/peers: this replica, its configured
// peers and what it learned of them.
type Estate struct {
	ReplicaID, Name string
	// Vector is this replica's version vector.
	Vector map[string]int64
	// Profile is this replica's own profile (a pyjson value).
	Profile any
	// Peers are the peers of peers.json in file order.
	Peers []EstatePeer
	// OriginProfiles are the node profiles known, by replica id, this
	// replica's own included (pyjson values).
	OriginProfiles map[string]any
	// SyncInterval is the period of the pull loop; 0 means no loop.
	SyncInterval time.Duration
	// InProcess is true when this process runs the replication that
	// produced the estate.
	InProcess bool
	// Lsnode is lsnode's extension under the key "lsnode", which a Python
	// hub does not send (a pyjson value); nil leaves it out.
	Lsnode any
}

// JSON is the estate in the hub's key order: self, peers,
// unnamed_origins (the origins held that neither this replica nor a peer
// is known to be, sorted), origin_profiles, sync_interval_s and
// estate_source, then lsnode's extension.
func (e Estate) JSON() pyjson.Object {
	named := map[string]bool{e.ReplicaID: true}
	peers := make([]any, 0, len(e.Peers))
	for _, p := range e.Peers {
		if p.ReplicaID != "" {
			named[p.ReplicaID] = true
		}
		peers = append(peers, p.JSON())
	}
	unnamed := []string{}
	for origin := range e.Vector {
		if !named[origin] {
			unnamed = append(unnamed, origin)
		}
	}
	slices.Sort(unnamed)
	out := pyjson.Object{
		{Key: "self", Value: pyjson.Object{
			{Key: "replica_id", Value: e.ReplicaID},
			{Key: "name", Value: e.Name},
			{Key: "version_vector", Value: e.Vector},
			{Key: "profile", Value: e.Profile},
		}},
		{Key: "peers", Value: peers},
		{Key: "unnamed_origins", Value: unnamed},
		{Key: "origin_profiles", Value: e.OriginProfiles},
		{Key: "sync_interval_s", Value: e.SyncInterval.Seconds()},
		{Key: "estate_source", Value: pyjson.Object{
			{Key: "in_process", Value: e.InProcess},
			{Key: "published_at", Value: nil},
			{Key: "writer_alive", Value: e.InProcess},
		}},
	}
	if e.Lsnode != nil {
		out = append(out, pyjson.Member{Key: "lsnode", Value: e.Lsnode})
	}
	return out
}

// EstatePeer is one configured peer of the estate and the outcome of its
// last pull.
type EstatePeer struct {
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
	LastPulledEvents    int64     // reported while reachable only
	LastPulledArtifacts int64     // reported while reachable only
	RemoteVersionVector map[string]int64
	Profile             any // pyjson value; nil for null
}

// JSON is the peer in the hub's key order.
func (p EstatePeer) JSON() pyjson.Object {
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
