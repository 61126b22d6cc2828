package main

import (
	"flag"
	"math"
	"time"

	"github.com/lsnode/lsnode/node"
)

// limitFlags are the HTTP and replication servers' timeouts and size and
// concurrency caps; each falls back to its LSNODE_* variable.
type limitFlags struct {
	readHeaderTimeout, readTimeout, idleTimeout, writeTimeout, maxLongPoll *time.Duration
	maxRequestBytes                                                        *int64
	maxHeaderBytes, maxPageBytes, streamsPerClient, waitsPerClient         *int
	grpcMaxMessage, grpcMaxStreams, grpcMaxSessions                        *int
	grpcHandshake                                                          *time.Duration
}

func addLimitFlags(fs *flag.FlagSet, env *serveEnv) *limitFlags {
	def := node.DefaultConfig()
	return &limitFlags{
		readHeaderTimeout: durationFlag(fs, "http-read-header-timeout", env.duration(def.HTTP.ReadHeaderTimeout, "LSNODE_HTTP_READ_HEADER_TIMEOUT"),
			"a client that has not sent a request's headers within this is disconnected (env LSNODE_HTTP_READ_HEADER_TIMEOUT)"),
		readTimeout: durationFlag(fs, "http-read-timeout", env.duration(def.HTTP.ReadTimeout, "LSNODE_HTTP_READ_TIMEOUT"),
			"bound on reading a whole request, body included; streams and long polls are not cut by it (env LSNODE_HTTP_READ_TIMEOUT)"),
		idleTimeout: durationFlag(fs, "http-idle-timeout", env.duration(def.HTTP.IdleTimeout, "LSNODE_HTTP_IDLE_TIMEOUT"),
			"an idle keep-alive connection is closed after this (env LSNODE_HTTP_IDLE_TIMEOUT)"),
		writeTimeout: durationFlag(fs, "http-write-timeout", env.duration(def.HTTP.WriteTimeout, "LSNODE_HTTP_WRITE_TIMEOUT"),
			"bound on writing a response, and on each SSE write; long polls get --max-long-poll on top (env LSNODE_HTTP_WRITE_TIMEOUT)"),
		maxLongPoll: durationFlag(fs, "max-long-poll", env.duration(def.HTTP.MaxLongPoll, "LSNODE_MAX_LONG_POLL"),
			"longest wait of /logstream/events wait_ms and of event_wait, whose own cap is the hub's 300000 ms (env LSNODE_MAX_LONG_POLL)"),
		maxRequestBytes: fs.Int64("max-request-bytes", env.int64(def.MCP.MaxRequestBytes, "LSNODE_MAX_REQUEST_BYTES"),
			"largest POST /mcp body; larger gets 413 (env LSNODE_MAX_REQUEST_BYTES)"),
		maxHeaderBytes: fs.Int("max-header-bytes", env.int(def.HTTP.MaxHeaderBytes, "LSNODE_MAX_HEADER_BYTES"),
			"largest request header block; larger gets 431 (env LSNODE_MAX_HEADER_BYTES)"),
		maxPageBytes: fs.Int("max-page-bytes", env.int(def.Store.MaxPageBytes, "LSNODE_MAX_PAGE_BYTES"),
			"about the most bytes of bodies and metadata one page of events carries (list, wait, owed, /logstream/events, SSE); a page cut short resumes after its last event (env LSNODE_MAX_PAGE_BYTES)"),
		streamsPerClient: fs.Int("max-streams-per-client", env.int(def.HTTP.MaxStreamsPerClient, "LSNODE_MAX_STREAMS_PER_CLIENT"),
			"concurrent /logstream/stream connections per client (its tokens-file token, else its IP); more get 429; 0 no cap (env LSNODE_MAX_STREAMS_PER_CLIENT)"),
		waitsPerClient: fs.Int("max-waits-per-client", env.int(def.HTTP.MaxWaitsPerClient, "LSNODE_MAX_WAITS_PER_CLIENT"),
			"concurrent long polls (event_wait, /logstream/events wait_ms) per client (its tokens-file token, else its IP); more get 429; 0 no cap (env LSNODE_MAX_WAITS_PER_CLIENT)"),
		grpcMaxMessage: fs.Int("grpc-max-message-bytes", env.int(def.Replication.MaxMessageBytes, "LSNODE_GRPC_MAX_MESSAGE_BYTES"),
			"largest replication message, both ways; the same on every node (env LSNODE_GRPC_MAX_MESSAGE_BYTES)"),
		grpcMaxStreams: fs.Int("grpc-max-streams-per-conn", env.int(int(def.Replication.MaxStreamsPerConn), "LSNODE_GRPC_MAX_STREAMS_PER_CONN"),
			"concurrent streams of one inbound replication connection (env LSNODE_GRPC_MAX_STREAMS_PER_CONN)"),
		grpcMaxSessions: fs.Int("grpc-max-sessions", env.int(def.Replication.MaxInboundSessions, "LSNODE_GRPC_MAX_SESSIONS"),
			"inbound replication sessions served at once, over all connections; one more is refused and its dialer retries (env LSNODE_GRPC_MAX_SESSIONS)"),
		grpcHandshake: durationFlag(fs, "grpc-handshake-timeout", env.duration(def.Replication.HandshakeTimeout, "LSNODE_GRPC_HANDSHAKE_TIMEOUT"),
			"an inbound replication connection that has not finished its setup by then is closed (env LSNODE_GRPC_HANDSHAKE_TIMEOUT)"),
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
