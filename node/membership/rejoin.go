package membership

import "time"

// runRejoin joins the known peers once at start, then every
// RejoinInterval (unless negative) joins again those that are not alive.
// memberlist forgets a dead node after its reap time and never probes it
// again, so without this loop two sides of a partition that outlasted the
// reap time would stay apart after it heals.
func (m *Membership) runRejoin() {
	m.rejoin()
	if m.cfg.RejoinInterval < 0 {
		return
	}
	tick := time.NewTicker(m.cfg.RejoinInterval)
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-tick.C:
			m.rejoin()
		}
	}
}

// rejoin tries each target in turn, checking for Shutdown between them.
func (m *Membership) rejoin() {
	if m.left.Load() {
		return
	}
	for _, addr := range m.rejoinTargets() {
		select {
		case <-m.stop:
			return
		default:
		}
		n, err := m.ml.Join([]string{addr})
		if err != nil {
			m.log.Debug("rejoin failed", "addr", addr, "err", errorLine(err))
			continue
		}
		m.log.Info("rejoined", "addr", addr, "reached", n)
	}
}

// rejoinTargets lists the addresses of the known peers that are not up,
// and Join's seeds while no peer at all is up.
func (m *Membership) rejoinTargets() []string {
	up := map[string]bool{}
	peersUp := false
	for _, mem := range m.Members() {
		if mem.State.Up() {
			up[mem.Name] = true
			peersUp = peersUp || mem.Name != m.cfg.Name
		}
	}
	var targets []string
	for _, p := range m.known.list() {
		if !up[p.Name] {
			targets = appendNew(targets, p.Addr)
		}
	}
	if !peersUp {
		m.seedsMu.Lock()
		seeds := append([]string(nil), m.seeds...)
		m.seedsMu.Unlock()
		targets = appendNew(targets, seeds...)
	}
	return targets
}
