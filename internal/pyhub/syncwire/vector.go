package syncwire

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
	"github.com/lsnode/lsnode/internal/pyhub/pyrepr"
	"github.com/lsnode/lsnode/internal/pyhub/pytime"
)

// Profile is a node profile as a replica advertises its own: its roles
// ("replica", "agents", "compute"), its platform and when it was made.
// Neither lsnode nor the fake hub has an accelerator or drawers (a vector
// store), so both are null.
type Profile struct {
	Roles        []string
	Hardware     string
	AdvertisedAt time.Time
}

// JSON is the profile in the hub's key order.
func (p Profile) JSON() pyjson.Object {
	return pyjson.Object{
		{Key: "roles", Value: p.Roles},
		{Key: "accelerator", Value: nil},
		{Key: "drawers", Value: nil},
		{Key: "hardware", Value: p.Hardware},
		{Key: "advertised_at", Value: pytime.UTC(p.AdvertisedAt)},
	}
}

// VersionVector is the answer of GET /sync/version_vector. P is how
// profiles are held: pyjson values (a Profile's JSON, a peer's raw JSON)
// to answer, json.RawMessage as decoded.
type VersionVector[P any] struct {
	// ReplicaID is the answering replica; "" when the answer names none.
	ReplicaID string
	// Vector is, by origin, the origin_seq of the last op held.
	Vector map[string]int64
	// Profile is the replica's own profile; the zero P (nil) is null.
	Profile P
	// Profiles are the node profiles it knows, by replica id, its own
	// included.
	Profiles map[string]P
}

// JSON is the answer in the hub's key order: {"replica_id",
// "version_vector", "profile", "profiles"}.
func (v VersionVector[P]) JSON() pyjson.Object {
	return pyjson.Object{
		{Key: "replica_id", Value: v.ReplicaID},
		{Key: "version_vector", Value: v.Vector},
		{Key: "profile", Value: v.Profile},
		{Key: "profiles", Value: v.Profiles},
	}
}

// TopError is a version vector whose top of an origin is not an
// integer.
type TopError struct {
	Origin string
	Top    json.Number
}

func (e *TopError) Error() string {
	return "top of origin " + pyrepr.String(e.Origin) + " is " + string(e.Top) + ", not an integer"
}

// DecodeVersionVector reads a /sync/version_vector answer. Vector is
// never nil, Profile is nil for null, and Profiles keep the peer's JSON.
// A top that is not an integer is a *TopError (the first in origin
// order); other errors are DecodeAnswer's.
func DecodeVersionVector(body []byte) (VersionVector[json.RawMessage], error) {
	var w struct {
		ReplicaID     *string                    `json:"replica_id"`
		VersionVector map[string]json.Number     `json:"version_vector"`
		Profile       json.RawMessage            `json:"profile"`
		Profiles      map[string]json.RawMessage `json:"profiles"`
	}
	if err := DecodeAnswer(body, &w); err != nil {
		return VersionVector[json.RawMessage]{}, err
	}
	vv := VersionVector[json.RawMessage]{Vector: make(map[string]int64, len(w.VersionVector)), Profiles: w.Profiles}
	for _, origin := range slices.Sorted(maps.Keys(w.VersionVector)) {
		top, err := strconv.ParseInt(string(w.VersionVector[origin]), 10, 64)
		if err != nil {
			return VersionVector[json.RawMessage]{}, &TopError{Origin: origin, Top: w.VersionVector[origin]}
		}
		vv.Vector[origin] = top
	}
	if w.ReplicaID != nil {
		vv.ReplicaID = *w.ReplicaID
	}
	if len(w.Profile) > 0 && string(w.Profile) != "null" {
		vv.Profile = w.Profile
	}
	return vv, nil
}
