package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/lsnode/lsnode/node"
)

// serveConfig parses serve's flags and returns the node configuration.
func serveConfig(t *testing.T, args ...string) node.Config {
	t.Helper()
	fs := newFlagSet("serve", io.Discard, io.Discard)
	f := addServeFlags(fs.FlagSet, osEnv, nil)
	if err := parseFlags(fs, args, false); err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	cfg, err := f.config(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("config %v: %v", args, err)
	}
	return cfg
}

func TestServeLimitFlags(t *testing.T) {
	def := serveConfig(t)
	want := node.DefaultConfig()
	if def.HTTP.ReadHeaderTimeout != want.HTTP.ReadHeaderTimeout || def.HTTP.ReadTimeout != want.HTTP.ReadTimeout ||
		def.HTTP.IdleTimeout != want.HTTP.IdleTimeout || def.HTTP.WriteTimeout != want.HTTP.WriteTimeout || def.HTTP.MaxLongPoll != want.HTTP.MaxLongPoll ||
		def.MCP.MaxRequestBytes != want.MCP.MaxRequestBytes || def.HTTP.MaxHeaderBytes != want.HTTP.MaxHeaderBytes || def.Store.MaxPageBytes != want.Store.MaxPageBytes ||
		def.HTTP.MaxStreamsPerClient != want.HTTP.MaxStreamsPerClient || def.HTTP.MaxWaitsPerClient != want.HTTP.MaxWaitsPerClient ||
		def.Replication.MaxMessageBytes != want.Replication.MaxMessageBytes || def.Replication.MaxStreamsPerConn != want.Replication.MaxStreamsPerConn ||
		def.Replication.HandshakeTimeout != want.Replication.HandshakeTimeout || def.Replication.MaxInboundSessions != want.Replication.MaxInboundSessions {
		t.Fatalf("defaults differ from node.DefaultConfig: %+v", def)
	}
	cfg := serveConfig(t, "--http-read-header-timeout=3s", "--http-read-timeout=7s", "--http-idle-timeout=11s",
		"--http-write-timeout=13s", "--max-long-poll=17s", "--max-request-bytes=1048576", "--max-header-bytes=8192",
		"--max-page-bytes=2097152", "--max-streams-per-client=2", "--max-waits-per-client=5",
		"--grpc-max-message-bytes=16777216", "--grpc-max-streams-per-conn=4", "--grpc-handshake-timeout=3s", "--grpc-max-sessions=9")
	if cfg.HTTP.ReadHeaderTimeout != 3*time.Second || cfg.HTTP.ReadTimeout != 7*time.Second || cfg.HTTP.IdleTimeout != 11*time.Second ||
		cfg.HTTP.WriteTimeout != 13*time.Second || cfg.HTTP.MaxLongPoll != 17*time.Second || cfg.MCP.MaxRequestBytes != 1<<20 ||
		cfg.HTTP.MaxHeaderBytes != 8192 || cfg.Store.MaxPageBytes != 2<<20 || cfg.HTTP.MaxStreamsPerClient != 2 || cfg.HTTP.MaxWaitsPerClient != 5 ||
		cfg.Replication.MaxMessageBytes != 16<<20 || cfg.Replication.MaxStreamsPerConn != 4 || cfg.Replication.HandshakeTimeout != 3*time.Second ||
		cfg.Replication.MaxInboundSessions != 9 {
		t.Fatalf("flags not applied: %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("valid limits refused: %v", err)
	}
}

func TestServeLimitEnv(t *testing.T) {
	for k, v := range map[string]string{
		"LSNODE_HTTP_READ_HEADER_TIMEOUT": "2s", "LSNODE_HTTP_READ_TIMEOUT": "4s", "LSNODE_HTTP_IDLE_TIMEOUT": "6s",
		"LSNODE_HTTP_WRITE_TIMEOUT": "8s", "LSNODE_MAX_LONG_POLL": "9s", "LSNODE_MAX_REQUEST_BYTES": "4096",
		"LSNODE_MAX_HEADER_BYTES": "5000", "LSNODE_MAX_PAGE_BYTES": "3000000", "LSNODE_MAX_STREAMS_PER_CLIENT": "1", "LSNODE_MAX_WAITS_PER_CLIENT": "0",
		"LSNODE_GRPC_MAX_MESSAGE_BYTES": "9000000", "LSNODE_GRPC_MAX_STREAMS_PER_CONN": "2", "LSNODE_GRPC_HANDSHAKE_TIMEOUT": "1s",
		"LSNODE_GRPC_MAX_SESSIONS": "7",
	} {
		t.Setenv(k, v)
	}
	cfg := serveConfig(t)
	if cfg.HTTP.ReadHeaderTimeout != 2*time.Second || cfg.HTTP.ReadTimeout != 4*time.Second || cfg.HTTP.IdleTimeout != 6*time.Second ||
		cfg.HTTP.WriteTimeout != 8*time.Second || cfg.HTTP.MaxLongPoll != 9*time.Second || cfg.MCP.MaxRequestBytes != 4096 ||
		cfg.HTTP.MaxHeaderBytes != 5000 || cfg.Store.MaxPageBytes != 3000000 || cfg.HTTP.MaxStreamsPerClient != 1 || cfg.HTTP.MaxWaitsPerClient != 0 ||
		cfg.Replication.MaxMessageBytes != 9000000 || cfg.Replication.MaxStreamsPerConn != 2 || cfg.Replication.HandshakeTimeout != time.Second ||
		cfg.Replication.MaxInboundSessions != 7 {
		t.Fatalf("env not applied: %+v", cfg)
	}
	// A flag beats its variable.
	if cfg := serveConfig(t, "--max-waits-per-client=3"); cfg.HTTP.MaxWaitsPerClient != 3 {
		t.Fatalf("flag did not win over env: %d", cfg.HTTP.MaxWaitsPerClient)
	}
}

func TestServeLimitFlagsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--http-read-header-timeout=0s"},
		{"--http-read-timeout=-1s"},
		{"--http-idle-timeout=0s"},
		{"--max-header-bytes=100"},
		{"--max-page-bytes=1000"},
		{"--max-request-bytes=0"},
		{"--max-streams-per-client=-1"},
		{"--max-waits-per-client=-2"},
		{"--max-long-poll=0s"},
		{"--grpc-max-message-bytes=1048576"},
		{"--grpc-max-streams-per-conn=0"},
		{"--grpc-handshake-timeout=0s"},
		{"--grpc-max-sessions=0"},
	} {
		if err := serveConfig(t, args...).Validate(); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	fs := newFlagSet("serve", io.Discard, io.Discard)
	addServeFlags(fs.FlagSet, osEnv, nil)
	if err := parseFlags(fs, []string{"--max-streams-per-client=many"}, false); err == nil {
		t.Fatal("a non-integer cap parsed")
	}
}

// TestServeEnvRefused: a serve variable that does not parse stops serve
// with its name and value (it used to fall back to the default silently),
// unless its flag is given, which beats it.
func TestServeEnvRefused(t *testing.T) {
	bad := map[string]string{
		"LSNODE_MAX_LONG_POLL": "300", "LSNODE_GRPC_MAX_SESSIONS": "many", "LSNODE_COMMIT_LINGER": "2",
		"LSNODE_READ_CACHE_MB": "32MiB", "LSNODE_MAX_CLOCK_OFFSET": "half a second", "LSNODE_HTTP_SYNC_INTERVAL": "5",
	}
	for k, v := range bad {
		t.Setenv(k, v)
	}
	fs := newFlagSet("serve", io.Discard, io.Discard)
	f := addServeFlags(fs.FlagSet, osEnv, nil)
	if err := parseFlags(fs, nil, false); err != nil {
		t.Fatal(err)
	}
	_, err := f.config(slog.New(slog.DiscardHandler))
	if err == nil {
		t.Fatal("serve accepted variables that do not parse")
	}
	for k, v := range bad {
		if !strings.Contains(err.Error(), k+`="`+v+`"`) {
			t.Errorf("error %q does not name %s=%q", err, k, v)
		}
	}
	for k := range bad {
		if fs.Lookup(strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(k, "LSNODE_"), "_", "-"))) == nil {
			t.Errorf("%s names no flag", k)
		}
	}
	cfg := serveConfig(t, "--max-long-poll=1m", "--grpc-max-sessions=4", "--commit-linger=2ms", "--read-cache-mb=32",
		"--max-clock-offset=500ms", "--http-sync-interval=5s")
	if cfg.HTTP.MaxLongPoll != time.Minute || cfg.Replication.MaxInboundSessions != 4 {
		t.Fatalf("flags given over bad variables: %+v", cfg)
	}
}
