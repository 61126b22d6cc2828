package main

// serveFlagGroups are the sections of `lsnode serve -h`, each flag of
// serve in exactly one (a test holds every new flag to that).
var serveFlagGroups = []flagGroup{
	{"HTTP", []string{"http", "extra-allowed-hosts", "http-read-header-timeout", "http-read-timeout",
		"http-idle-timeout", "http-write-timeout", "shutdown-timeout"}},
	{"MCP", []string{"read-only", "max-long-poll", "max-page-bytes"}},
	{"console", []string{"console", "console-idle-timeout"}},
	{"replication", []string{"grpc", "grpc-advertise", "peer", "http-sync-interval", "max-clock-offset",
		"test-clock-offset", "ready-max-lag-ops", "ready-max-quarantined", "ready-min-alive-peers"}},
	{"membership", []string{"cluster-id", "name", "gossip", "advertise", "join", "rejoin-interval"}},
	{"security", []string{"token-file", "tokens-file", "allow-insecure-no-token", "tls-cert", "tls-key", "tls-ca",
		"gossip-key-file", "unsigned-origins"}},
	{"limits", []string{"max-request-bytes", "max-header-bytes", "sse-max-clients", "max-streams-per-client",
		"max-waits-per-client", "grpc-max-message-bytes", "grpc-max-streams-per-conn", "grpc-max-sessions",
		"grpc-handshake-timeout", "memory-limit"}},
	{"storage", []string{"data", "sync-full", "read-cache-mb", "commit-linger", "recover-min-peers"}},
	{"general", []string{"config", "log-level"}},
}
