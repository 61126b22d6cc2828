package hubpull

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"
)

// PeerResult is what one round did with one HTTP peer: the Python hub's
// per-peer stats (peer_name, peer_url, peer_replica, pulled_events,
// pulled_artifacts, per_origin, remote_version_vector, remote_profile(s)),
// plus the store's apply counts and the problems met.
type PeerResult struct {
	Name      string // the peer's label: its name, else its URL (unique in the round)
	URL       string // password redacted; never the token
	ReplicaID string // the peer's replica_id; "" when not learned this round

	PulledEvents    int            // ops newly stored
	PulledArtifacts int            // artifacts newly stored
	PerOrigin       map[string]int // ops newly stored, by origin (origins with none are absent)
	Duplicates      int            // ops already held
	Quarantined     int            // ops the store refused (invalid or conflicting), slot consumed or not
	Deferred        int            // ops left for a later round (an artifact missing, or a hole)

	RemoteVersionVector map[string]int64           // the peer's vector at round start
	Profile             json.RawMessage            // the peer's node profile; nil if none
	Profiles            map[string]json.RawMessage // profiles the peer relays, by replica id

	// Err is why the round with this peer failed as a whole (unreachable,
	// HTTP error, garbage answer, storage failure); nil when it answered.
	Err error
	// OriginErrs are problems confined to one origin or op: an artifact
	// the peer does not serve, an undecodable op, an origin that made no
	// progress. The other origins were pulled; the stopped ones are
	// retried next round.
	OriginErrs []error
}

// Result is the round's outcome: "ok", "partial" or "error".
func (r PeerResult) Result() string {
	switch {
	case r.Err != nil:
		return pullError
	case len(r.OriginErrs) > 0:
		return pullPartial
	}
	return pullOK
}

// Error joins Err and OriginErrs into one text ("" when the round was
// clean), at most maxShownProblems of them.
func (r PeerResult) Error() string {
	if r.Err != nil {
		return r.Err.Error()
	}
	if len(r.OriginErrs) == 0 {
		return ""
	}
	var b strings.Builder
	for i, e := range r.OriginErrs {
		if i == maxShownProblems {
			fmt.Fprintf(&b, "; and %d more", len(r.OriginErrs)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

const maxShownProblems = 3

// PeerStatus is one row of the HTTP roster: the Python hub's estate
// entry plus the lag. Timestamps are zero for
// null; render them with pytime.UTCOrNull for the Python shape.
type PeerStatus struct {
	Name string // label: name, else URL (unique)
	URL  string // password redacted; never the token
	// Synced is false until a round has been attempted with the peer;
	// the estate then shows only name and url.
	Synced              bool
	ReplicaID           string // "" until learned (null)
	Reachable           bool   // the last round got answers from the peer
	LastError           string // "" for null; never holds the token
	LastErrorAt         time.Time
	LastSuccessAt       time.Time // last round with no problem at all
	LastPulledEvents    int64
	LastPulledArtifacts int64
	RemoteVersionVector map[string]int64 // nil until learned (null)
	Profile             json.RawMessage  // the peer's profile; nil until learned (null)
	// Profiles are the node profiles the peer relays, by replica id, for
	// the node's origin_profiles.
	Profiles map[string]json.RawMessage
	// LagOps is the origin_seq distance from this node's vector up to the
	// peer's last vector, over the origins other than this node's own.
	// For Python origins, whose numbering has gaps, it is an upper bound.
	LagOps int64
}

// httpPeerState is what the puller remembers of a peer between rounds.
type httpPeerState struct {
	peer   Peer
	status PeerStatus
	// refused holds artifacts the peer served that the store refused (bad
	// hash, invalid), with the round they were refused in, so they are
	// not fetched (and quarantined again) every round.
	refused map[string]uint64
}

// refusedRetryRounds is how many rounds an artifact the store refused is
// left alone before it is fetched again (the peer may have repaired it).
const refusedRetryRounds = 20

// maxRefusedRemembered bounds httpPeerState.refused.
const maxRefusedRemembered = 1024

func (s *httpPeerState) skipArtifact(id string, round uint64) bool {
	at, ok := s.refused[id]
	return ok && round-at < refusedRetryRounds
}

func (s *httpPeerState) refuse(id string, round uint64) {
	if s.refused == nil || len(s.refused) >= maxRefusedRemembered {
		s.refused = map[string]uint64{}
	}
	s.refused[id] = round
}

// apply folds a round's result into the status, as the Python hub folds
// sync stats into its estate: a failed round keeps what was learned
// before; a partial round (the peer answered, some origin stopped) is
// reachable with last_error set and does not move last_success_at.
func (s *httpPeerState) apply(r PeerResult, now time.Time) {
	st := &s.status
	st.Synced = true
	if r.Err != nil {
		st.Reachable = false
		st.LastError, st.LastErrorAt = r.Error(), now
		return
	}
	st.Reachable = true
	if r.ReplicaID != "" {
		st.ReplicaID = r.ReplicaID
	}
	st.RemoteVersionVector = r.RemoteVersionVector
	st.Profile, st.Profiles = r.Profile, r.Profiles
	st.LastPulledEvents, st.LastPulledArtifacts = int64(r.PulledEvents), int64(r.PulledArtifacts)
	if len(r.OriginErrs) > 0 {
		st.LastError, st.LastErrorAt = r.Error(), now
		return
	}
	st.LastError, st.LastSuccessAt = "", now
}

// lag is the origin_seq distance from local up to remote, own origin
// excluded.
func lag(remote, local map[string]int64, self string) int64 {
	var n int64
	for o, top := range remote {
		if o != self && top > local[o] {
			n += top - local[o]
		}
	}
	return n
}

// copyStatus returns st with its maps copied, so callers may keep it.
func copyStatus(st PeerStatus) PeerStatus {
	st.RemoteVersionVector = maps.Clone(st.RemoteVersionVector)
	st.Profiles = maps.Clone(st.Profiles)
	return st
}

// isOriginProblem reports whether err, met while pulling one origin,
// stops only that origin (the round with the peer goes on): a 400 for
// the origin's pages, or a problem with its content.
func isOriginProblem(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code == 400
	}
	return errors.Is(err, errOriginStopped)
}

// errOriginStopped marks a problem confined to one origin.
var errOriginStopped = errors.New("origin stopped")

// originError is a problem confined to one origin; it matches
// errOriginStopped and nothing else.
type originError struct{ text string }

func (e *originError) Error() string        { return e.text }
func (e *originError) Is(target error) bool { return target == errOriginStopped }

func originErrorf(format string, args ...any) error {
	return &originError{fmt.Sprintf(format, args...)}
}
