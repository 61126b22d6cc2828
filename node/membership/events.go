package membership

import "time"

// event says that something about the named node changed. The events
// goroutine reads the node's current entry rather than trusting a copy
// taken when the event was queued, so a late event never reports a stale
// state, and a dropped one is made good by the next reconciliation.
type event struct{ name string }

// reportedState is what the Handler was last told about one node.
type reportedState struct {
	up      bool
	addr    string
	meta    Meta
	refused string // reason of the last PeerRefused, "" if none
}

// enqueue hands an event to the events goroutine without blocking. When
// the queue is full the event is dropped and counted, and a
// reconciliation is requested.
func (m *Membership) enqueue(ev event) {
	select {
	case m.events <- ev:
	default:
		m.metrics.dropped.Inc()
		select {
		case m.kick <- struct{}{}:
		default:
		}
	}
}

// runEvents is the one goroutine that calls the Handler. It stops when
// Shutdown closes m.stop.
func (m *Membership) runEvents() {
	tick := time.NewTicker(m.cfg.ReconcileInterval)
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			return
		case ev := <-m.events:
			m.dispatch(ev.name)
		case <-m.kick:
			m.reconcile()
		case <-tick.C:
			m.reconcile()
		}
	}
}

// dispatch reports the current state of one node.
func (m *Membership) dispatch(name string) {
	for _, cur := range m.Members() {
		if cur.Name == name {
			m.deliver(cur)
			m.flushKnown()
			return
		}
	}
	m.vanished(name)
}

// reconcile compares everything the Handler was told with Members() and
// reports the differences; it also forgets long-dead members.
func (m *Membership) reconcile() {
	for _, gone := range m.table.forget(time.Now().Add(-m.cfg.ForgetAfter)) {
		m.known.remove(gone.Name)
	}
	seen := map[string]bool{}
	for _, cur := range m.Members() {
		seen[cur.Name] = true
		m.deliver(cur)
	}
	for name := range m.reported {
		if !seen[name] {
			m.vanished(name)
		}
	}
	m.flushKnown()
}

// deliver tells the Handler about cur if it differs from what the Handler
// was last told, and keeps the known peers up to date.
func (m *Membership) deliver(cur Member) {
	if cur.Name == m.cfg.Name {
		return
	}
	prev := m.reported[cur.Name]
	switch {
	case cur.State == StateRefused:
		if prev.refused == cur.Reason {
			return
		}
		m.reported[cur.Name] = reportedState{refused: cur.Reason}
		m.log.Warn("refused node", "peer", cur.Name, "addr", cur.Addr, "reason", cur.Reason)
		m.handler.PeerRefused(cur, cur.Reason)
	case cur.State.Up():
		m.known.seen(cur.Name, cur.Addr, time.Now())
		if prev.up && prev.addr == cur.Addr && prev.meta == cur.Meta {
			return
		}
		m.reported[cur.Name] = reportedState{up: true, addr: cur.Addr, meta: cur.Meta}
		m.log.Info("peer up", "peer", cur.Name, "addr", cur.Addr, "replica", cur.Meta.ReplicaID)
		m.handler.PeerUp(cur)
	default: // dead or left
		if cur.State == StateLeft {
			m.known.remove(cur.Name) // it said goodbye: do not chase it
		}
		if !prev.up {
			return
		}
		m.reported[cur.Name] = reportedState{addr: cur.Addr, meta: cur.Meta}
		m.log.Info("peer down", "peer", cur.Name, "state", string(cur.State))
		m.handler.PeerDown(cur)
	}
}

// vanished handles a node no longer listed at all (forgotten).
func (m *Membership) vanished(name string) {
	prev, ok := m.reported[name]
	if !ok {
		return
	}
	delete(m.reported, name)
	if prev.up {
		m.handler.PeerDown(Member{Name: name, Addr: prev.addr, Meta: prev.meta, State: StateDead})
	}
}

func (m *Membership) flushKnown() {
	if err := m.known.flush(); err != nil {
		m.log.Warn("save known peers", "err", err)
	}
}
