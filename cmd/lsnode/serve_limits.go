package main

import (
	"math"
	"time"

	"github.com/lsnode/lsnode/node"
)

// limitFlags are the HTTP and replication servers' timeouts and size and
// concurrency caps; each takes its default from its LSNODE_* variable,
// the configuration file and node.DefaultConfig (serveEnv).
type limitFlags struct {
	readHeaderTimeout, readTimeout, idleTimeout, writeTimeout, maxLongPoll *time.Duration
	maxRequestBytes                                                        *int64
	maxHeaderBytes, maxPageBytes, streamsPerClient, waitsPerClient         *int
	grpcMaxMessage, grpcMaxStreams, grpcMaxSessions                        *int
	grpcHandshake                                                          *time.Duration
}

func addLimitFlags(e *serveEnv) *limitFlags {
	def := node.DefaultConfig()
	return &limitFlags{
		readHeaderTimeout: e.Duration("http-read-header-timeout", def.HTTP.ReadHeaderTimeout,
			"a client that has not sent a request's headers within this is disconnected (env LSNODE_HTTP_READ_HEADER_TIMEOUT)", "LSNODE_HTTP_READ_HEADER_TIMEOUT"),
		readTimeout: e.Duration("http-read-timeout", def.HTTP.ReadTimeout,
			"bound on reading a whole request, body included; streams and long polls are not cut by it (env LSNODE_HTTP_READ_TIMEOUT)", "LSNODE_HTTP_READ_TIMEOUT"),
		idleTimeout: e.Duration("http-idle-timeout", def.HTTP.IdleTimeout,
			"an idle keep-alive connection is closed after this (env LSNODE_HTTP_IDLE_TIMEOUT)", "LSNODE_HTTP_IDLE_TIMEOUT"),
		writeTimeout: e.Duration("http-write-timeout", def.HTTP.WriteTimeout,
			"bound on writing a response, and on each SSE write; long polls get --max-long-poll on top (env LSNODE_HTTP_WRITE_TIMEOUT)", "LSNODE_HTTP_WRITE_TIMEOUT"),
		maxLongPoll: e.Duration("max-long-poll", def.HTTP.MaxLongPoll,
			"longest wait of /logstream/events wait_ms and of event_wait, whose own cap is the hub's 300000 ms (env LSNODE_MAX_LONG_POLL)", "LSNODE_MAX_LONG_POLL"),
		maxRequestBytes: e.Int64("max-request-bytes", def.MCP.MaxRequestBytes,
			"largest POST /mcp body; larger gets 413 (env LSNODE_MAX_REQUEST_BYTES)", "LSNODE_MAX_REQUEST_BYTES"),
		maxHeaderBytes: e.Int("max-header-bytes", def.HTTP.MaxHeaderBytes,
			"largest request header block; larger gets 431 (env LSNODE_MAX_HEADER_BYTES)", "LSNODE_MAX_HEADER_BYTES"),
		maxPageBytes: e.Int("max-page-bytes", def.Store.MaxPageBytes,
			"about the most bytes of bodies and metadata one page of events carries (list, wait, owed, /logstream/events, SSE); a page cut short resumes after its last event (env LSNODE_MAX_PAGE_BYTES)", "LSNODE_MAX_PAGE_BYTES"),
		streamsPerClient: e.Int("max-streams-per-client", def.HTTP.MaxStreamsPerClient,
			"concurrent /logstream/stream connections per client (its tokens-file token, else its IP); more get 429; 0 no cap (env LSNODE_MAX_STREAMS_PER_CLIENT)", "LSNODE_MAX_STREAMS_PER_CLIENT"),
		waitsPerClient: e.Int("max-waits-per-client", def.HTTP.MaxWaitsPerClient,
			"concurrent long polls (event_wait, /logstream/events wait_ms) per client (its tokens-file token, else its IP); more get 429; 0 no cap (env LSNODE_MAX_WAITS_PER_CLIENT)", "LSNODE_MAX_WAITS_PER_CLIENT"),
		grpcMaxMessage: e.Int("grpc-max-message-bytes", def.Replication.MaxMessageBytes,
			"largest replication message, both ways; the same on every node (env LSNODE_GRPC_MAX_MESSAGE_BYTES)", "LSNODE_GRPC_MAX_MESSAGE_BYTES"),
		grpcMaxStreams: e.Int("grpc-max-streams-per-conn", int(def.Replication.MaxStreamsPerConn),
			"concurrent streams of one inbound replication connection (env LSNODE_GRPC_MAX_STREAMS_PER_CONN)", "LSNODE_GRPC_MAX_STREAMS_PER_CONN"),
		grpcMaxSessions: e.Int("grpc-max-sessions", def.Replication.MaxInboundSessions,
			"inbound replication sessions served at once, over all connections; one more is refused and its dialer retries (env LSNODE_GRPC_MAX_SESSIONS)", "LSNODE_GRPC_MAX_SESSIONS"),
		grpcHandshake: e.Duration("grpc-handshake-timeout", def.Replication.HandshakeTimeout,
			"an inbound replication connection that has not finished its setup by then is closed (env LSNODE_GRPC_HANDSHAKE_TIMEOUT)", "LSNODE_GRPC_HANDSHAKE_TIMEOUT"),
	}
}

// apply copies the flags into a node configuration, whose Validate
// refuses values out of range.
func (f *limitFlags) apply(cfg *node.Config) {
	h := &cfg.HTTP
	h.ReadHeaderTimeout, h.ReadTimeout, h.IdleTimeout = *f.readHeaderTimeout, *f.readTimeout, *f.idleTimeout
	h.WriteTimeout, h.MaxLongPoll = *f.writeTimeout, *f.maxLongPoll
	h.MaxHeaderBytes, h.MaxStreamsPerClient, h.MaxWaitsPerClient = *f.maxHeaderBytes, *f.streamsPerClient, *f.waitsPerClient
	cfg.MCP.MaxRequestBytes = *f.maxRequestBytes
	cfg.Store.MaxPageBytes = *f.maxPageBytes
	r := &cfg.Replication
	r.MaxMessageBytes, r.HandshakeTimeout, r.MaxInboundSessions = *f.grpcMaxMessage, *f.grpcHandshake, *f.grpcMaxSessions
	// A count out of uint32's range stays out of the range Validate
	// accepts (1..65536) instead of wrapping into it.
	r.MaxStreamsPerConn = uint32(min(max(*f.grpcMaxStreams, 0), math.MaxUint32))
}
