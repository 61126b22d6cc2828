package membership

import (
	"fmt"
	"time"

	"github.com/hashicorp/memberlist"
)

// delegates adapts the Membership to memberlist's delegate interfaces.
// memberlist calls these from its packet, gossip and probe loops, mostly
// while it holds its node lock, so every method returns at once: it
// updates the table (a map behind a short lock) and hands the change to
// the event queue without blocking (a full queue drops and counts it).
// Nothing here calls into memberlist or the Handler.
type delegates struct{ m *Membership }

var (
	_ memberlist.Delegate      = (*delegates)(nil)
	_ memberlist.EventDelegate = (*delegates)(nil)
	_ memberlist.AliveDelegate = (*delegates)(nil)
	_ memberlist.MergeDelegate = (*delegates)(nil)
	_ memberlist.PingDelegate  = (*delegates)(nil)
)

// NodeMeta returns this node's encoded metadata, checked against the
// limit when it was set (Create, UpdateMeta).
func (d *delegates) NodeMeta(limit int) []byte {
	b := d.m.metaBytes()
	if len(b) > limit {
		return nil // cannot happen: Encode enforces memberlist.MetaMaxSize
	}
	return b
}

// NotifyMsg takes the user messages members send each other: keyring
// messages (keymsg.go) and leaving notices (leave.go). It copies nothing
// it keeps and never blocks.
func (d *delegates) NotifyMsg(b []byte) { d.m.userMessage(b) }

// GetBroadcasts, LocalState and MergeRemoteState are unused: lsnode
// gossips no user data, only membership.
func (d *delegates) GetBroadcasts(int, int) [][]byte { return nil }
func (d *delegates) LocalState(bool) []byte          { return nil }
func (d *delegates) MergeRemoteState([]byte, bool)   {}
func (d *delegates) NotifyJoin(n *memberlist.Node)   { d.changed(n, false) }
func (d *delegates) NotifyUpdate(n *memberlist.Node) { d.changed(n, false) }
func (d *delegates) NotifyLeave(n *memberlist.Node)  { d.changed(n, true) }
func (d *delegates) changed(n *memberlist.Node, down bool) {
	if down {
		d.m.table.down(n)
	} else {
		d.m.table.upsert(n)
	}
	d.m.enqueue(event{name: n.Name})
}

// NotifyAlive keeps out a node of another cluster, or one whose metadata
// does not decode: memberlist ignores the alive message, so the node never
// becomes a member, whichever way it arrived (gossip or push/pull).
func (d *delegates) NotifyAlive(n *memberlist.Node) error {
	return d.m.admit(n)
}

// NotifyMerge refuses a join (push/pull with a node outside the cluster) as
// a whole when any node the other side knows is refused, as serf does, so
// two clusters never merge through one stray seed address.
func (d *delegates) NotifyMerge(peers []*memberlist.Node) error {
	var first error
	for _, n := range peers {
		if err := d.m.admit(n); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return fmt.Errorf("merge refused: %w", first)
	}
	return nil
}

// AckPayload adds nothing to acks.
func (d *delegates) AckPayload() []byte { return nil }

// NotifyPingComplete records a successful probe (for StateSuspect and RTT).
// Only other.Name is read: memberlist passes its own node, which it keeps
// changing, and the name never changes.
func (d *delegates) NotifyPingComplete(other *memberlist.Node, rtt time.Duration, _ []byte) {
	d.m.table.acked(other.Name, rtt)
}
