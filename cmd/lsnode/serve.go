package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/lsnode/lsnode/internal/datadir"
	"github.com/lsnode/lsnode/node"
	"github.com/lsnode/lsnode/store"
)

// serveFlags are the flags of `lsnode serve`; each falls back to its
// LSNODE_* variable, then to the Python hub's variable where it has one.
type serveFlags struct {
	data, httpAddr, tokenFile, tokensFile, tlsCert, tlsKey, tlsCA, extraHosts, logLevel *string
	readOnly, syncFull, allowInsecure                                                   *bool
	sseMaxClients, readCacheMB                                                          *int
	shutdownTimeout, commitLinger                                                       *time.Duration
	cluster                                                                             *clusterFlags
	limits                                                                              *limitFlags
	console                                                                             *consoleFlags
	memory                                                                              memoryLimitFlag
	env                                                                                 *serveEnv
}

func addServeFlags(fs *flag.FlagSet) *serveFlags {
	def := node.DefaultConfig()
	env := &serveEnv{fs: fs}
	return &serveFlags{
		env:       env,
		data:      fs.String("data", envOr(def.DataDir, "LSNODE_DATA"), "data dir holding the log (env LSNODE_DATA)"),
		httpAddr:  fs.String("http", envOr(def.HTTPAddr, "LSNODE_HTTP"), "HTTP listen address host:port (env LSNODE_HTTP)"),
		tokenFile: fs.String("token-file", envOr("", "LSNODE_TOKEN_FILE"), "file holding the bearer token (env LSNODE_TOKEN_FILE; else LSNODE_TOKEN or MEMPALACE_MCP_HTTP_TOKEN)"),
		tokensFile: fs.String("tokens-file", envOr("", "LSNODE_TOKENS_FILE"),
			"agent tokens file: per token the from_agent names it may write as and what it may read; re-read on SIGHUP (env LSNODE_TOKENS_FILE)"),
		readOnly: fs.Bool("read-only", envTruthy("LSNODE_READ_ONLY", "MEMPALACE_MCP_READ_ONLY"), "refuse every write tool (env LSNODE_READ_ONLY)"),
		tlsCert:  fs.String("tls-cert", envOr("", "LSNODE_TLS_CERT", "MEMPALACE_MCP_TLS_CERT"), "TLS certificate file; needs --tls-key (env LSNODE_TLS_CERT)"),
		tlsKey:   fs.String("tls-key", envOr("", "LSNODE_TLS_KEY", "MEMPALACE_MCP_TLS_KEY"), "TLS key file; needs --tls-cert (env LSNODE_TLS_KEY)"),
		tlsCA: fs.String("tls-ca", envOr("", "LSNODE_TLS_CA"),
			"CA certificate file (PEM): mutual TLS for replication with the --tls-cert/--tls-key pair; peers need a certificate from this CA (env LSNODE_TLS_CA)"),
		syncFull: fs.Bool("sync-full", envTruthy("LSNODE_SYNC_FULL"), "SQLite synchronous=FULL: writes survive power loss (env LSNODE_SYNC_FULL)"),
		sseMaxClients: fs.Int("sse-max-clients", sseMaxClientsEnv(def.SSEMaxClients),
			"most concurrent /logstream/stream clients; 0 refuses streams (env LSNODE_SSE_MAX_CLIENTS or MEMPALACE_SSE_MAX_CLIENTS)"),
		allowInsecure: fs.Bool("allow-insecure-no-token", envTruthy("LSNODE_ALLOW_INSECURE_NO_TOKEN", "MEMPALACE_MCP_HTTP_ALLOW_INSECURE_NO_TOKEN"),
			"allow a non-loopback bind without a token, behind a trusted fronting layer (env LSNODE_ALLOW_INSECURE_NO_TOKEN)"),
		extraHosts: fs.String("extra-allowed-hosts", envOr("", "LSNODE_EXTRA_ALLOWED_HOSTS", "MEMPALACE_MCP_EXTRA_ALLOWED_HOSTS"),
			"comma-separated host or host:port values a loopback bind also accepts in Host (env LSNODE_EXTRA_ALLOWED_HOSTS)"),
		readCacheMB: fs.Int("read-cache-mb", env.int(int(store.DefaultTailCacheBytes>>20), "LSNODE_READ_CACHE_MB"),
			"MiB of the newest events kept decoded in memory to answer lists; 0 turns the cache off (env LSNODE_READ_CACHE_MB)"),
		commitLinger: durationFlag(fs, "commit-linger", env.duration(store.DefaultCommitLinger, "LSNODE_COMMIT_LINGER"),
			"how long the store may hold a small transaction open for more writes, while that gathers some, so one commit carries several; 0 commits at once (env LSNODE_COMMIT_LINGER)"),
		shutdownTimeout: durationFlag(fs, "shutdown-timeout", 10*time.Second, "how long shutdown waits for in-flight requests"),
		logLevel:        fs.String("log-level", envOr("info", "LSNODE_LOG_LEVEL"), "debug, info, warn or error (env LSNODE_LOG_LEVEL)"),
		cluster:         addClusterFlags(fs, env),
		limits:          addLimitFlags(fs, env),
		console:         addConsoleFlags(fs, env),
		memory:          addMemoryLimitFlag(fs),
	}
}

// sseMaxClientsEnv reads the stream cap as the Python hub does: garbage
// falls back to def, a negative value clamps to 0.
func sseMaxClientsEnv(def int) int {
	v := envOr("", "LSNODE_SSE_MAX_CLIENTS", "MEMPALACE_SSE_MAX_CLIENTS")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return max(n, 0)
}

// config turns the parsed flags into a node configuration.
func (f *serveFlags) config(logger *slog.Logger) (node.Config, error) {
	if err := f.env.err(); err != nil {
		return node.Config{}, err
	}
	if *f.shutdownTimeout < 0 {
		return node.Config{}, usageErrorf("--shutdown-timeout %v: must not be negative", *f.shutdownTimeout)
	}
	token, _, err := resolveToken(*f.tokenFile)
	if err != nil {
		return node.Config{}, err
	}
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.HTTPAddr, cfg.Token, cfg.TokensFile = *f.data, *f.httpAddr, token, *f.tokensFile
	cfg.ReadOnly, cfg.SyncFull, cfg.AllowInsecureNoToken = *f.readOnly, *f.syncFull, *f.allowInsecure
	cfg.TLSCertFile, cfg.TLSKeyFile, cfg.TLSCAFile = *f.tlsCert, *f.tlsKey, *f.tlsCA
	cfg.SSEMaxClients = max(*f.sseMaxClients, 0)
	cfg.ReadCacheBytes = -1 // 0 MiB (or fewer): off
	if *f.readCacheMB > 0 {
		cfg.ReadCacheBytes = int64(*f.readCacheMB) << 20
	}
	cfg.CommitLinger = -1 // 0 (or less): commit at once
	if *f.commitLinger > 0 {
		cfg.CommitLinger = *f.commitLinger
	}
	cfg.ExtraAllowedHosts = splitList(*f.extraHosts)
	f.cluster.apply(&cfg)
	f.limits.apply(&cfg)
	f.console.apply(&cfg)
	cfg.Version, cfg.Logger = version, logger
	return cfg, nil
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, usageErrorf("--log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// runServe runs one node in the foreground until SIGINT or SIGTERM (ctx),
// then shuts it down in phases: stop accepting, end streams, finish
// in-flight requests, close the store. It holds the data dir's lock
// (internal/datadir) from before the node touches the dir until after the
// store is closed: a second serve on the dir is refused, naming this one.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stdout, stderr)
	f := addServeFlags(fs.FlagSet)
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err // interrupted before starting
	}
	level, err := parseLevel(*f.logLevel)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg, err := f.config(logger)
	if err != nil {
		return err
	}
	if err := f.memory.apply(logger); err != nil {
		return err
	}
	n, err := node.New(cfg)
	if err != nil {
		return err
	}
	if err := cfg.CheckFiles(); err != nil {
		return err
	}
	// Every flag and file is checked by now; the lock comes before
	// anything else in the data dir is created or opened.
	lock, err := datadir.Acquire(cfg.DataDir)
	if err != nil {
		return err
	}
	defer lock.Release()
	if err := n.Start(ctx); err != nil {
		return err
	}
	if err := lock.SetHTTP(n.URL()); err != nil {
		logger.Warn("could not record the HTTP address in the data dir lock", "err", err)
	}
	failed := runUntilStopped(ctx, n, logger)
	sctx, cancel := context.WithTimeout(context.Background(), *f.shutdownTimeout)
	defer cancel()
	if err := n.Shutdown(sctx); err != nil {
		return errors.Join(failed, fmt.Errorf("shutdown: %w", err))
	}
	if failed == nil {
		logger.Info("shutdown: complete")
	}
	return failed
}

// runUntilStopped serves until ctx ends (SIGINT, SIGTERM) or the node
// fails, and returns the failure. SIGHUP meanwhile re-reads the tokens
// file; a bad file is logged and the current tokens stay.
func runUntilStopped(ctx context.Context, n *node.Node, logger *slog.Logger) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			logger.Info("shutdown: signal received")
			return nil
		case err := <-n.Failed():
			return err
		case <-hup:
			_ = n.ReloadTokens() // logged by the node; the old tokens stay on failure
		}
	}
}
