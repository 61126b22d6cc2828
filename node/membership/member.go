package membership

import (
	"net"
	"strconv"
	"time"

	"github.com/hashicorp/memberlist"
)

// State is a member's state as this node sees it.
type State string

// Member states. Dead and Left are memberlist's verdicts. Alive means a
// member memberlist has not declared dead. Suspect is this node's own
// suspicion: an alive member it has not probed successfully for three
// probe cycles (memberlist's SWIM suspicion is internal: its public API
// offers no race-free way to read it, so it cannot be shown as such).
// Suspect members are still up; memberlist declares them dead or they
// answer again. Refused is this package's: a node kept out of the cluster
// (another cluster id, or metadata this build cannot decode).
const (
	StateAlive   State = "alive"
	StateSuspect State = "suspect"
	StateDead    State = "dead"
	StateLeft    State = "left"
	StateRefused State = "refused"
)

// allStates lists every state, in the order metrics and rosters use.
var allStates = []State{StateAlive, StateSuspect, StateDead, StateLeft, StateRefused}

// Up reports whether a member in this state counts as a peer: alive, or
// suspect (not yet declared dead, and may still refute).
func (s State) Up() bool { return s == StateAlive || s == StateSuspect }

// Member is one node as this node sees it.
type Member struct {
	// Name is the node's unique memberlist name.
	Name string
	// Addr is the node's gossip address, host:port.
	Addr string
	// State is alive, suspect, dead, left or refused.
	State State
	// Meta is the node's decoded metadata (zero for a refused node whose
	// metadata could not be decoded).
	Meta Meta
	// Generation counts the transitions this node has seen for the member
	// (join, metadata update, death or leave, rejoin). memberlist v0.7.0
	// keeps its own incarnation numbers unexported, so this is the local
	// stand-in: it changes exactly when the member's entry changes.
	Generation uint64
	// Since is when this node saw the member enter State.
	Since time.Time
	// Reason says why a refused member was refused; "" otherwise.
	Reason string
	// LastAck is when this node last probed the member successfully, and
	// RTT that probe's round-trip time; zero until the first probe.
	LastAck time.Time
	RTT     time.Duration
}

// nodeAddr is a memberlist node's gossip address as host:port.
func nodeAddr(n *memberlist.Node) string {
	return net.JoinHostPort(n.Addr.String(), strconv.Itoa(int(n.Port)))
}

// aliveMember converts a memberlist node that joined or changed; its
// metadata was accepted by admit. memberlist's Node.State is not read: it
// is never updated for the nodes memberlist tracks.
func aliveMember(n *memberlist.Node, now time.Time) Member {
	meta, _ := DecodeMeta(n.Meta)
	return Member{
		Name:  n.Name,
		Addr:  nodeAddr(n),
		State: StateAlive,
		Meta:  meta,
		Since: now,
	}
}
