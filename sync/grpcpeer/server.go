package grpcpeer

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/peer"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	"github.com/lsnode/lsnode/proto/lsnode/v1/lsnodev1grpc"
)

// grpcServer serves the Replication service: every inbound Session
// stream runs a listener-side session.
type grpcServer struct {
	lsnodev1grpc.UnimplementedReplicationServer
	r *Replicator
}

// RegisterGRPC registers the Replication service on s. Sessions are
// accepted only between Start and Stop. The caller configures s (TLS,
// MaxRecvMsgSize of at least Config.MaxMessageBytes: see ServerOptions).
func (r *Replicator) RegisterGRPC(s *grpc.Server) {
	lsnodev1grpc.RegisterReplicationServer(s, grpcServer{r: r})
}

// ServerOptions returns the grpc.ServerOptions replication needs (message
// size limits, the streams of a connection, the setup deadline, the
// keepalive policy); pass them to grpc.NewServer with the node's own.
func (r *Replicator) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(r.cfg.MaxMessageBytes),
		grpc.MaxSendMsgSize(r.cfg.MaxMessageBytes),
		grpc.MaxConcurrentStreams(r.cfg.MaxStreamsPerConn),
		grpc.ConnectionTimeout(r.cfg.HandshakeTimeout),
		grpc.InitialWindowSize(flowWindow),
		grpc.InitialConnWindowSize(flowWindow),
		// Accept the dialers' keepalive pings (client.go); the
		// default policy answers pings closer than 5 min with GOAWAY.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveTime / 2, PermitWithoutStream: true}),
	}
}

// Session implements lsnodev1grpc.ReplicationServer.
func (g grpcServer) Session(stream grpc.BidiStreamingServer[pb.Frame, pb.Frame]) error {
	addr := ""
	if p, ok := peer.FromContext(stream.Context()); ok {
		addr = p.Addr.String()
	}
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	return toStatus(g.r.serveInbound(ctx, addr, stream))
}
