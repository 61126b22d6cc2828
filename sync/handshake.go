package lssync

import (
	"context"
	"fmt"
	"time"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
)

// Open starts the session on the dialer's end: it returns the first Hello.
// The listener's end calls Open too (it returns nothing) so both ends time
// the handshake from the same point.
func (l *Link) Open(now time.Time) []*pb.Frame {
	l.openedAt = now
	if !l.dialer {
		return nil
	}
	return []*pb.Frame{l.hello(now, 0)}
}

func (l *Link) hello(now time.Time, echo int64) *pb.Frame {
	h := &pb.Hello{
		ClusterId:       l.cfg.ClusterID,
		ProtocolVersion: ProtocolVersion,
		ReplicaId:       l.self,
		SentUnixNanos:   now.UnixNano(),
		EchoUnixNanos:   echo,
	}
	if l.cfg.Integrity != nil {
		h.PublicKey = l.cfg.Integrity.PublicKey()
	}
	l.helloFeatures(h)
	return &pb.Frame{Kind: &pb.Frame_Hello{Hello: h}}
}

// onHello runs the three-way handshake. Dialer: Hello ->; listener:
// <- Hello (echoing the dialer's time); dialer: Hello with the offset it
// measured ->, then its first round. Either end refuses a peer of another
// cluster or protocol version before anything else is exchanged.
func (l *Link) onHello(ctx context.Context, h *pb.Hello, now time.Time) ([]*pb.Frame, error) {
	if l.ready {
		return nil, l.onLateHello(h)
	}
	if err := l.checkHello(h); err != nil {
		return nil, err
	}
	if in := l.cfg.Integrity; in != nil && len(h.GetPublicKey()) > 0 {
		if err := in.Learn(ctx, h.GetReplicaId(), h.GetPublicKey(), h.GetReplicaId()); err != nil {
			return nil, err
		}
	}
	l.peer = h.GetReplicaId()
	if err := l.initArtifacts(ctx, h); err != nil {
		return nil, err
	}
	l.ready = true
	if !l.dialer {
		return []*pb.Frame{l.hello(now, h.GetSentUnixNanos())}, nil
	}
	l.art.peerReady = true // the listener answers once its end is done
	l.measure(h.GetEchoUnixNanos(), h.GetSentUnixNanos(), now)
	confirm := l.hello(now, 0)
	confirm.GetHello().MeasuredOffsetNanos = int64(l.clock.offset)
	confirm.GetHello().MeasuredRttNanos = int64(l.clock.rtt)
	l.needRound = true
	return append([]*pb.Frame{confirm}, l.maybeRound(now)...), nil
}

// onLateHello takes the dialer's confirming Hello (or a duplicate).
func (l *Link) onLateHello(h *pb.Hello) error {
	if h.GetReplicaId() != l.peer {
		return fmt.Errorf("%w: peer changed replica id from %s to %s", ErrProtocol, l.peer, h.GetReplicaId())
	}
	if !l.dialer && h.GetMeasuredRttNanos() > 0 {
		l.setClock(-time.Duration(h.GetMeasuredOffsetNanos()), time.Duration(h.GetMeasuredRttNanos()))
	}
	return nil
}

func (l *Link) checkHello(h *pb.Hello) error {
	switch {
	case h.GetClusterId() != l.cfg.ClusterID:
		return fmt.Errorf("%w: this node is in cluster %q, peer %s is in cluster %q",
			ErrClusterMismatch, l.cfg.ClusterID, h.GetReplicaId(), h.GetClusterId())
	case h.GetProtocolVersion() != ProtocolVersion:
		return fmt.Errorf("%w: this node speaks %d, peer %s speaks %d",
			ErrProtocolVersion, ProtocolVersion, h.GetReplicaId(), h.GetProtocolVersion())
	case h.GetReplicaId() == "":
		return fmt.Errorf("%w: hello without a replica id", ErrProtocol)
	case h.GetReplicaId() == l.self:
		return fmt.Errorf("%w: peer replica id %s is this node's", ErrSelfConnection, l.self)
	}
	return nil
}
