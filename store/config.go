package store

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
)

// DefaultMaxBatch is how many queued writes may share one transaction
// (Config.MaxBatch) by default.
const DefaultMaxBatch = 256

// Config configures Open. The zero value of every field but Dir is usable;
// DefaultConfig spells the defaults out.
type Config struct {
	// Dir is the data dir holding logstream.sqlite3 and replica.json.
	// Required; it has no default.
	Dir string
	// ReplicaID overrides replica.json; "" reads or mints it.
	ReplicaID string
	// Wall is the physical clock; nil means hlc.SystemClock{}.
	Wall hlc.WallClock
	// MaxClockOffset bounds how far ahead of local wall time a remote stamp
	// may drag the local clock; 0 means hlc.DefaultMaxOffset.
	MaxClockOffset time.Duration
	// SyncFull selects PRAGMA synchronous=FULL (survives power loss) over
	// the default NORMAL (survives a process crash; WAL).
	SyncFull bool
	// ReadOnly refuses every write, local or applied.
	ReadOnly bool
	// MaxBatch caps how many queued writes share one transaction (group
	// commit); 0 means DefaultMaxBatch.
	MaxBatch int
	// CommitLinger is how long the writer may hold a transaction that
	// stored few items open for more writes before committing it, when
	// lingering has been gathering writes (linger.go): 0 means
	// DefaultCommitLinger, a negative value never lingers.
	CommitLinger time.Duration
	// Logger receives warnings (quarantined ops, skewed clocks); nil
	// discards.
	Logger *slog.Logger
	// Metrics is where the store registers its collectors; nil registers
	// nothing.
	Metrics prometheus.Registerer
	// TailCacheBytes is the memory budget of the read cache of the log's
	// newest events that List answers from; 0 means DefaultTailCacheBytes,
	// a negative value disables the cache. Owed's cache of older events
	// read by id holds up to a quarter of it on top.
	TailCacheBytes int64
	// TailCacheWarmEvents bounds how many of the newest events Open reads
	// into the read cache (about 10 µs each at 1M events): 0 means
	// DefaultTailCacheWarmEvents, a negative value only the budget.
	TailCacheWarmEvents int
	// MaxPageBytes bounds the bodies and metadata of the events one List,
	// Wait or Owed page returns (the first event always goes): 0 means
	// DefaultMaxPageBytes, a negative value no bound beyond the count
	// limit. A list page cut short resumes, by cursor or event id, after
	// its last event.
	MaxPageBytes int

	// noSearchIndex leaves the search index out of every write: the
	// baseline the search index's write cost is measured against
	// (bench_search_test.go). Search answers nothing then.
	noSearchIndex bool
}

// DefaultConfig returns the defaults of every setting; Dir is left for
// the caller to set.
func DefaultConfig() Config {
	return Config{
		MaxBatch:            DefaultMaxBatch,
		CommitLinger:        DefaultCommitLinger,
		TailCacheBytes:      DefaultTailCacheBytes,
		TailCacheWarmEvents: DefaultTailCacheWarmEvents,
		MaxPageBytes:        DefaultMaxPageBytes,
	}
}

// Validate reports the first problem of c. Open calls it.
func (c Config) Validate() error {
	switch {
	case c.Dir == "":
		return errors.New("store: Config.Dir is required")
	case c.ReplicaID != "" && !ValidReplicaID(c.ReplicaID):
		return fmt.Errorf("store: invalid replica id %q", c.ReplicaID)
	case c.MaxBatch < 0:
		return errors.New("store: Config.MaxBatch must not be negative")
	}
	return nil
}
