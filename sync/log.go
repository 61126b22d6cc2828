package lssync

import (
	"context"

	"github.com/lsnode/lsnode/store"
)

// Log is what replication needs from the coordination log. *store.Store
// provides it through StoreLog; tests use an in-memory fake (sync/simnet).
// Every method must be safe for concurrent use.
type Log interface {
	// ReplicaID names this replica (the origin of its local ops).
	ReplicaID() string
	// VersionVector returns a copy of origin -> top origin_seq held. Every
	// origin is held as a prefix, so the vector says exactly what is held.
	VersionVector() map[string]int64
	// OpsAfter returns the ops of origin with origin_seq > after in
	// ascending order, PrevSeq filled, at most limit ops and about maxBytes.
	OpsAfter(ctx context.Context, origin string, after int64, limit, maxBytes int) ([]store.Op, error)
	// GetArtifact returns a held artifact; an error wrapping
	// store.ErrNotFound when it is not held.
	GetArtifact(ctx context.Context, id string) (store.Artifact, error)
	// ApplyBatch stores a remote batch idempotently in one transaction.
	// Bad or conflicting ops are quarantined, not returned as errors; an
	// error means the storage failed.
	ApplyBatch(ctx context.Context, b store.Batch) (store.ApplyResult, error)
	// Subscribe delivers committed ops (local and applied) in commit order.
	Subscribe(buffer int) Subscription
}

// Subscription is a feed of committed ops. It never blocks the writer:
// when its buffer is full it is marked lagged and its channel is closed.
type Subscription interface {
	C() <-chan []store.Op
	Lagged() bool
	Close()
}
