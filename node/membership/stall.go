package membership

import (
	"time"

	"golang.org/x/sync/errgroup"
)

// A node that stops running for a while (SIGSTOP, a paused VM, a host
// that starves it) is suspected by its peers, and once it runs again it
// has only what is left of their suspicion timeout to refute it.
// memberlist refutes when the node hears of the suspicion: it bumps its
// incarnation and gossips an alive message, which goes out a few times
// (RetransmitMult) piggybacked on whatever packets leave next. After a
// stall those are mostly acks to the pings that queued up meanwhile, so
// the news can miss a peer entirely. That peer then keeps the node suspect
// and declares it dead when its timer runs out, although the node answers
// its probes all along: an ack does not clear a suspicion, and the stale
// suspect messages the peer keeps sending are ignored, not refuted again.
//
// So a node that notices it did not run for stallLimit or longer asserts
// itself without waiting to hear of anything: a new incarnation, then a
// push/pull state exchange over TCP with every peer it knows, which hands
// each of them the new incarnation directly (memberlist's Join).
const (
	// stallTick is how often the stall watch looks at the clock.
	stallTick = 100 * time.Millisecond
	// stallLimit is the gap between two ticks that counts as a stall:
	// five probe intervals, past the point where peers start to suspect
	// (one probe interval plus the probe timeout) and far above the late
	// ticks of a busy scheduler.
	stallLimit = 5 * probeInterval
	// stallBroadcastWait bounds the wait for the new incarnation's gossip;
	// the push/pull exchanges deliver it anyway.
	stallBroadcastWait = 50 * time.Millisecond
	// reassertParallel bounds the state exchanges a reassertion runs at
	// once: each holds a TCP connection and a copy of the whole table, so a
	// large cluster must not get them all in the same instant.
	reassertParallel = 32
)

// stallWatch tells stalls from the clock readings (monotonic) taken at
// each tick.
type stallWatch struct {
	limit time.Duration
	last  time.Time
}

// tick takes a reading and returns the gap since the last one, and
// whether that gap is a stall.
func (w *stallWatch) tick(now time.Time) (time.Duration, bool) {
	gap := now.Sub(w.last)
	w.last = now
	return gap, gap > w.limit
}

// runStallWatch reasserts this node after each stall, until Shutdown.
// The time reassert takes is not a stall: the watch restarts after it.
func (m *Membership) runStallWatch() {
	tick := time.NewTicker(stallTick)
	defer tick.Stop()
	w := stallWatch{limit: stallLimit, last: time.Now()}
	for {
		select {
		case <-m.stop:
			return
		case <-tick.C:
		}
		if gap, stalled := w.tick(time.Now()); stalled {
			m.reassert(gap)
			w.last = time.Now()
		}
	}
}

// reassert announces this node with a new incarnation and exchanges state
// with every peer it knows, reassertParallel at a time, returning when
// every exchange has ended (a peer that does not answer takes up to
// memberlist's TCPTimeout). A node that has left asserts nothing.
func (m *Membership) reassert(stalled time.Duration) {
	if m.left.Load() {
		return
	}
	m.metrics.stalls.Inc()
	m.log.Warn("this node did not run for a while; announcing itself to every peer", "stalled", stalled.Round(time.Millisecond))
	if err := m.ml.UpdateNode(stallBroadcastWait); err != nil {
		m.log.Debug("new incarnation still gossiping", "err", err)
	}
	var g errgroup.Group
	g.SetLimit(reassertParallel)
	for _, addr := range m.reassertTargets() {
		g.Go(func() error {
			if _, err := m.ml.Join([]string{addr}); err != nil {
				m.log.Debug("state exchange after a stall failed", "addr", addr, "err", errorLine(err))
			}
			return nil
		})
	}
	_ = g.Wait() // every exchange logs its own failure
}

// reassertTargets lists the addresses of every other node of the table
// that has not left and was not refused: during the stall this node's view
// went stale, so peers it holds dead are asked too.
func (m *Membership) reassertTargets() []string {
	var addrs []string
	for _, mem := range m.table.snapshot() {
		if mem.Name == m.cfg.Name || mem.State == StateLeft || mem.State == StateRefused || mem.Addr == "" {
			continue
		}
		addrs = appendNew(addrs, mem.Addr)
	}
	return addrs
}
