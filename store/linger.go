package store

import "time"

// DefaultCommitLinger is how long the writer may hold a small transaction
// open for more writes before committing it (Config.CommitLinger). At
// 3 x 500 appends/s on three nodes of one host, 2 ms cut the nodes' store
// transactions by half and their CPU per event by 8 %, 1 ms by a third
// and 4 %.
const DefaultCommitLinger = 2 * time.Millisecond

// lingerBelow is the number of items stored in a transaction from which
// its commit is cheap enough per item that the writer does not wait for
// more: a commit writes a dozen or more WAL frames whatever it holds.
const lingerBelow = 8

// maxLingerBackoff bounds how many commits go by without lingering after
// lingers that gathered nothing: a lone caller then waits one window in
// every 129 commits (about 3 % of its time at 250 µs a commit), and a node
// whose callers paused (or got no CPU for a while, on a busy host) lingers
// again within 128 commits of their return.
const maxLingerBackoff = 128

// lingerer decides when the writer waits for more writes before it
// commits. A commit costs about as much as a dozen inserts (every b-tree
// it touched is written to the WAL), so at the rates of a node in a mesh
// (hundreds to a few thousand writes a second from independent callers:
// HTTP requests and replication sessions) most commits would hold one
// write and most of the writer's CPU would go to commits. Waiting up to
// window for more writes lets one commit carry several.
//
// Lingering only pays when other callers are about to write. A lone
// caller that writes, waits for the answer and writes again gains nothing
// from it and would only be slowed down, so a linger that gathers no
// write doubles the number of commits that go by before the next one is
// tried (up to maxLingerBackoff), and one that gathers a write resets it.
// Only the writer goroutine uses a lingerer.
type lingerer struct {
	window  time.Duration
	after   func(time.Duration) <-chan time.Time // time.After; tests inject their own
	skip    int                                  // commits left before the next linger
	backoff int                                  // the skip set after the last fruitless linger
}

func newLingerer(window time.Duration) *lingerer {
	return &lingerer{window: window, after: time.After}
}

// wanted reports whether the writer should linger before committing a
// transaction that stored stored items, and counts a commit towards the
// end of a backoff.
func (l *lingerer) wanted(stored int) bool {
	if l.window <= 0 || stored >= lingerBelow {
		return false
	}
	if l.skip > 0 {
		l.skip--
		return false
	}
	return true
}

// gathered records how many writes a linger gathered.
func (l *lingerer) gathered(n int) {
	if n > 0 {
		l.backoff = 0
		return
	}
	l.backoff = min(max(1, 2*l.backoff), maxLingerBackoff)
	l.skip = l.backoff
}

// linger waits up to the lingerer's window for writes to join batch and
// returns it with those that came. It stops early once lingerBelow
// requests have joined, or when the store closes.
func (s *Store) linger(batch []*writeReq) []*writeReq {
	before := len(batch)
	expired := s.lingerer.after(s.lingerer.window)
	for len(batch)-before < lingerBelow && len(batch) < s.cfg.MaxBatch {
		select {
		case req := <-s.writes:
			batch = append(batch, req)
			s.metrics.lingerJoined.Inc()
			continue
		case <-expired:
		case <-s.stop:
		}
		break
	}
	gathered := len(batch) - before
	s.lingerer.gathered(gathered)
	outcome := "gathered"
	if gathered == 0 {
		outcome = "empty"
	}
	s.metrics.lingers.WithLabelValues(outcome).Inc()
	return batch
}
