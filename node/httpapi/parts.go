package httpapi

import (
	"context"
	"errors"
	"time"

	"github.com/lsnode/lsnode/node/membership"
	"github.com/lsnode/lsnode/store"
)

// Log is what the routes read from the log; *store.Store implements it.
type Log interface {
	ReplicaID() string
	List(ctx context.Context, f store.Filter) (store.ListResult, error)
	Wait(ctx context.Context, f store.Filter, timeout time.Duration) (store.ListResult, bool, error)
	NewWatch(f store.Filter) (*store.Watch, error)
	LatestSeq(ctx context.Context) (int64, error)
	EventSeq(ctx context.Context, id string) (int64, error)
	Stats(ctx context.Context) (store.Stats, error)
	QuarantinedCount(ctx context.Context) (int64, error)
	VersionVector() map[string]int64
	OpsAfter(ctx context.Context, origin string, after int64, limit, maxBytes int) ([]store.Op, error)
	GetArtifact(ctx context.Context, id string) (store.Artifact, error)
	Agents(ctx context.Context, window time.Duration) ([]store.AgentInfo, error)
}

var _ Log = (*store.Store)(nil)

// Replication is what /readyz and /statusz read of the replication
// sessions. Both are called per request, so they must be cheap and safe
// for concurrent use.
type Replication interface {
	// ReadyPeers are the sessions: lag and whether each is up.
	ReadyPeers() []ReadyPeer
	// CatchUp is the progress of every origin a peer told this node of.
	CatchUp() []OriginProgress
}

// ReadyPeer is one replication session as readiness sees it.
type ReadyPeer struct {
	LagOps    int64
	Connected bool
}

// OriginProgress is one origin's catch-up as /statusz shows it: what is
// held, the target some peer holds, how far behind in ops and seconds,
// and the commit rate of the latest progress interval (0 when not
// catching up).
type OriginProgress struct {
	Origin        string
	Held, Target  int64
	BehindOps     int64
	BehindSeconds float64
	OpsPerSecond  float64
}

// Integrity is what /statusz shows of the node's origin integrity.
type Integrity interface {
	IntegrityStatus() IntegrityStatus
}

// IntegrityStatus is the integrity block of /statusz: the node's signing
// key and the counts of ops verified, refused and signed.
type IntegrityStatus struct {
	KeyFingerprint  string
	UnsignedOrigins string // the policy: "accept" or "refuse"
	Verified        int64
	Refused         int64
	KeyConflicts    int64
	Signed          int64
}

// Keyring runs a gossip keyring operation across the mesh, for
// /lsnode/keys.
type Keyring interface {
	KeyOperation(ctx context.Context, op membership.KeyOp, key string) (membership.KeyReport, error)
}

// ErrNoGossip refuses keyring operations on a node that does not gossip.
var ErrNoGossip = errors.New("gossip is not enabled on this node (--gossip), so it has no keyring")
