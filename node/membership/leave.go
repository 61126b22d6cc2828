package membership

import (
	"time"

	"golang.org/x/sync/errgroup"
)

// msgLeaving is the user message a leaving node sends every member that is
// up, over memberlist's reliable channel, between its leaving metadata
// and memberlist's own leave; the body is the leaver's name.
//
// Why a third signal: the leaving metadata (an alive message) and
// memberlist's leave (a dead message from the node itself) travel by
// gossip, independently. A member that gets the dead message first
// records the node dead, and ignores the alive message that comes after
// it (same incarnation), so under load a graceful leave could be shown as
// a crash. The notice reaches each member directly, and the table takes
// it in either order (table.leaving): a node already recorded dead turns
// left.
const msgLeaving byte = 3

// announceLeaving sends the leaving notice to every member that is up, at
// most reassertParallel at a time, and waits for the sends until deadline.
// Sends still running then finish in the background; Shutdown joins them.
func (m *Membership) announceLeaving(deadline time.Time) {
	msg := append([]byte{msgLeaving}, m.cfg.Name...)
	var g errgroup.Group
	g.SetLimit(reassertParallel)
	done := make(chan struct{})
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer close(done)
		for _, p := range m.alivePeers() {
			g.Go(func() error {
				if err := m.ml.SendReliable(p, msg); err != nil {
					m.log.Debug("leaving notice not delivered; the member relies on gossip", "peer", p.Name, "err", err)
				}
				return nil
			})
		}
		_ = g.Wait() // each send logs its own failure
	}()
	select {
	case <-done:
	case <-time.After(time.Until(deadline)):
		m.log.Warn("leaving notices still being sent at the leave deadline")
	}
}

// leavingNotice takes a member's notice that it is leaving.
func (m *Membership) leavingNotice(name string) {
	if name == m.cfg.Name {
		return
	}
	m.table.leaving(name)
	m.enqueue(event{name: name})
}
