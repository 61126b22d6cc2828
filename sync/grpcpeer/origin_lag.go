package grpcpeer

import (
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/store"
)

// OriginLag is how far this node's copy of one origin is behind the most
// any gRPC peer is known to hold of it: the catch-up progress of that
// origin.
type OriginLag struct {
	Origin string
	Held   int64 // top origin_seq held here
	Target int64 // top origin_seq some peer is known to hold (>= Held)
	// Seconds is 0 when Held == Target, else now minus the later of the
	// origin wall time of the newest op of origin committed here and the
	// moment this node learned it lacks ops of origin. The newest held op
	// bounds how stale the copy is; the second term keeps an origin that
	// writes rarely from showing its whole idle time as lag.
	Seconds float64
	// Rate is ops of origin committed here per second since the previous
	// progress line of this origin (0 in the first second of a catch-up).
	Rate float64
}

// Ops is Target - Held.
func (o OriginLag) Ops() int64 { return o.Target - o.Held }

// originLag tracks OriginLag for every origin. Its inputs are the ops the
// node commits (Replicator.fanOut) and the vectors of every session
// (session.refresh); it sets the per-origin gauges and writes a progress
// log line per lagging origin at most every progressEvery.
type originLag struct {
	m             *metrics
	logger        *slog.Logger
	progressEvery time.Duration

	mu struct {
		sync.Mutex
		newestMS    map[string]int64     // origin -> HLC wall ms of its newest op committed here
		behindSince map[string]time.Time // origins held short of a peer, since when
		rows        map[string]OriginLag // latest computed rows
		logged      map[string]progressMark
	}
}

// progressMark is the position of the previous progress line of an origin.
type progressMark struct {
	at   time.Time
	held int64
}

func newOriginLag(m *metrics, logger *slog.Logger, progressEvery time.Duration) *originLag {
	o := &originLag{m: m, logger: logger, progressEvery: progressEvery}
	o.mu.newestMS = map[string]int64{}
	o.mu.behindSince = map[string]time.Time{}
	o.mu.rows = map[string]OriginLag{}
	o.mu.logged = map[string]progressMark{}
	return o
}

// committed notes the newest op of each origin in a committed op list
// (ops of one origin are committed in origin_seq order).
func (o *originLag) committed(ops []store.Op) {
	newest := map[string]string{}
	for _, op := range ops {
		newest[op.Event.OriginReplica] = op.Event.HLC
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for origin, stamp := range newest {
		if ts, err := hlc.Parse(stamp); err == nil && ts.WallMS > o.mu.newestMS[origin] {
			o.mu.newestMS[origin] = ts.WallMS
		}
	}
}

// update recomputes every origin's row from the local vector and the
// highest seq any peer is known to hold, sets the gauges and logs
// progress. self is this node's replica id (never lagging itself).
func (o *originLag) update(now time.Time, self string, local, known map[string]int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for origin, target := range known {
		if origin == self {
			continue
		}
		held := local[origin]
		row := OriginLag{Origin: origin, Held: held, Target: max(held, target)}
		if row.Ops() > 0 {
			since, ok := o.mu.behindSince[origin]
			if !ok {
				since = now
				o.mu.behindSince[origin] = now
			}
			ref := max(since.UnixMilli(), o.mu.newestMS[origin])
			row.Seconds = max(0, float64(now.UnixMilli()-ref)/1000)
		} else {
			delete(o.mu.behindSince, origin)
		}
		row.Rate = o.mu.rows[origin].Rate
		o.mu.rows[origin] = row
		o.progress(now, row)
		o.m.originLag(origin, row.Ops(), row.Seconds)
	}
}

// catchUpAfter is how long an origin must stay behind before its catch-up
// is logged. Live replication leaves a node a few ops behind now and then
// for milliseconds; logged, that was a pair of lines every ~150 ms per
// origin on a node of a busy mesh.
const catchUpAfter = time.Second

// progress logs a lagging origin's catch-up once it has been behind for
// catchUpAfter, then at most every progressEvery, with the commit rate
// since its previous line; called with mu held.
func (o *originLag) progress(now time.Time, row OriginLag) {
	prev, seen := o.mu.logged[row.Origin]
	if row.Ops() == 0 {
		if seen {
			o.logger.Info("caught up with origin", "origin", row.Origin, "held", row.Held)
			delete(o.mu.logged, row.Origin)
		}
		return
	}
	if !seen && now.Sub(o.mu.behindSince[row.Origin]) < catchUpAfter {
		return
	}
	if seen && now.Sub(prev.at) >= time.Second {
		row.Rate = float64(row.Held-prev.held) / now.Sub(prev.at).Seconds()
		o.mu.rows[row.Origin] = row
	}
	if seen && now.Sub(prev.at) < o.progressEvery {
		return
	}
	o.mu.logged[row.Origin] = progressMark{at: now, held: row.Held}
	o.logger.Info("catching up with origin", "origin", row.Origin, "held", row.Held, "target", row.Target,
		"behind_ops", row.Ops(), "behind_seconds", row.Seconds, "ops_per_second", int64(row.Rate))
}

// rows returns the latest rows, sorted by origin.
func (o *originLag) rows() []OriginLag {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := slices.Collect(maps.Values(o.mu.rows))
	slices.SortFunc(out, func(a, b OriginLag) int { return strings.Compare(a.Origin, b.Origin) })
	return out
}
