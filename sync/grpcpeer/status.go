package grpcpeer

import (
	"time"

	lssync "github.com/lsnode/lsnode/sync"
)

// Peer states shown by Peers.
const (
	StateConnecting = "connecting" // dialing or handshaking
	StateSyncing    = "syncing"    // session up, pulling or checking
	StateFollowing  = "following"  // caught up; new ops arrive by push
	StateBackoff    = "backoff"    // last session failed; waiting to redial
	StateRefused    = "refused"    // the peer refused us (cluster, version, self) or we refused it
)

// PeerStatus is one row of the replication roster.
type PeerStatus struct {
	Addr      string // configured address (outbound) or remote address (inbound)
	Direction string // "outbound" (AddPeer) or "inbound" (accepted)
	ReplicaID string // "" until a handshake succeeded
	State     string
	LastSync  time.Time // last completed round or pull; zero if none yet
	LagOps    int64     // ops the peer holds that this node lacks, from vectors
	// LagSeconds is how far behind this node's copy is in time: 0 when
	// LagOps is 0, else the age (now minus origin HLC) of the oldest op in
	// the latest batch that stored ops from this peer, as MySQL's
	// seconds-behind-source. LagKnown is false before any such batch.
	LagSeconds  float64
	LagKnown    bool
	ClockOffset time.Duration // peer minus local, measured at the handshake and every round
	RTT         time.Duration
	ClockSkewed bool   // |ClockOffset| > Config.MaxClockOffset
	LastError   string // why the last session ended; "" if none
	// PeerHas is what the peer is known to hold, per origin (a copy).
	PeerHas map[string]int64
}

func peerStatus(addr, dir string, st lssync.LinkStatus, now time.Time) PeerStatus {
	ps := PeerStatus{
		Addr: addr, Direction: dir, ReplicaID: st.PeerReplicaID, State: StateConnecting,
		LastSync: st.LastSync, LagOps: st.LagOps, ClockOffset: st.ClockOffset, RTT: st.RTT,
		ClockSkewed: st.ClockSkewed, PeerHas: st.PeerHas,
	}
	ps.LagSeconds, ps.LagKnown = lagSeconds(st, now)
	switch {
	case !st.Ready:
	case st.CaughtUp:
		ps.State = StateFollowing
	default:
		ps.State = StateSyncing
	}
	return ps
}

// lagSeconds derives PeerStatus.LagSeconds from a link snapshot.
func lagSeconds(st lssync.LinkStatus, now time.Time) (float64, bool) {
	switch {
	case st.LagOps == 0:
		return 0, st.Ready
	case st.BehindMS > 0:
		return max(0, float64(now.UnixMilli()-st.BehindMS)/1000), true
	}
	return 0, false
}
