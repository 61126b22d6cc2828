package membership

// Handler receives membership changes; the node implements it. Its methods
// are called from one goroutine owned by the Membership, never
// concurrently and never from memberlist's own loops, so a slow Handler
// delays later changes but never gossip or failure detection. Calls are
// never made for the local node.
//
// The Handler sees each peer's transitions: PeerUp when it becomes alive,
// again when its address or metadata changes (treat it as "add or
// replace"), PeerDown when it is declared dead or left. A suspect peer is
// still up. Changes that arrive while the event queue is full are not
// lost: the periodic reconciliation delivers the difference, so the
// Handler may see a peer go from up straight to down with no intermediate
// state, but never a duplicate PeerUp with the same address and metadata,
// nor a PeerDown for a peer that is not up.
//
// The Handler may call Members and LocalNode; it must not call Shutdown.
type Handler interface {
	// PeerUp reports a peer that is alive (or suspect), with its metadata.
	PeerUp(Member)
	// PeerDown reports a peer declared dead or that left (Member.State).
	PeerDown(Member)
	// PeerRefused reports a node kept out of the cluster: another cluster
	// id, or metadata this build cannot decode. It is reported once per
	// reason; the node is listed in Members() as refused while it keeps
	// trying.
	PeerRefused(m Member, reason string)
}

// nopHandler is the Handler of a Membership created without one.
type nopHandler struct{}

func (nopHandler) PeerUp(Member)              {}
func (nopHandler) PeerDown(Member)            {}
func (nopHandler) PeerRefused(Member, string) {}
