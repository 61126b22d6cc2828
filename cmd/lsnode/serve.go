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
	"strings"
	"syscall"
	"time"

	"github.com/lsnode/lsnode/internal/datadir"
	"github.com/lsnode/lsnode/node"
	"github.com/lsnode/lsnode/node/auth"
)

// serveFlags are the flags of `lsnode serve`; each takes its default from
// its variables, the configuration file and node.DefaultConfig (serveEnv).
type serveFlags struct {
	configPath, data, httpAddr, tokenFile, tokensFile, tlsCert, tlsKey, tlsCA, extraHosts, logLevel *string
	readOnly, syncFull, allowInsecure                                                               *bool
	sseMaxClients, readCacheMB                                                                      *int
	shutdownTimeout, commitLinger                                                                   *time.Duration
	cluster                                                                                         *clusterFlags
	limits                                                                                          *limitFlags
	console                                                                                         *consoleFlags
	memory                                                                                          memoryLimitFlag
	env                                                                                             *serveEnv
}

// addServeFlags defines serve's flags on fs, with defaults from env and
// file (nil: none), the file of --config.
func addServeFlags(fs *flag.FlagSet, env environ, file *configFile) *serveFlags {
	def := node.DefaultConfig()
	e := &serveEnv{fs: fs, env: env, file: file}
	return &serveFlags{
		env: e,
		configPath: fs.String("config", "",
			"YAML file of these settings: keys are the flags' names, under their groups (http, mcp, ...); flags and variables beat it (docs/operations.md)"),
		data:      e.String("data", def.DataDir, "data dir holding the log (env LSNODE_DATA)", "LSNODE_DATA"),
		httpAddr:  e.String("http", def.HTTP.Addr, "HTTP listen address host:port (env LSNODE_HTTP)", "LSNODE_HTTP"),
		tokenFile: fs.String("token-file", e.tokenFile(), "file holding the bearer token (env LSNODE_TOKEN_FILE; else LSNODE_TOKEN or MEMPALACE_MCP_HTTP_TOKEN)"),
		tokensFile: e.String("tokens-file", "",
			"agent tokens file: per token the from_agent names it may write as and what it may read; re-read on SIGHUP (env LSNODE_TOKENS_FILE)", "LSNODE_TOKENS_FILE"),
		readOnly: e.Switch("read-only", "refuse every write tool (env LSNODE_READ_ONLY)", "LSNODE_READ_ONLY", "MEMPALACE_MCP_READ_ONLY"),
		tlsCert:  e.String("tls-cert", "", "TLS certificate file; needs --tls-key (env LSNODE_TLS_CERT)", "LSNODE_TLS_CERT", "MEMPALACE_MCP_TLS_CERT"),
		tlsKey:   e.String("tls-key", "", "TLS key file; needs --tls-cert (env LSNODE_TLS_KEY)", "LSNODE_TLS_KEY", "MEMPALACE_MCP_TLS_KEY"),
		tlsCA: e.String("tls-ca", "",
			"CA certificate file (PEM): mutual TLS for replication with the --tls-cert/--tls-key pair; peers need a certificate from this CA (env LSNODE_TLS_CA)", "LSNODE_TLS_CA"),
		syncFull: e.Switch("sync-full", "SQLite synchronous=FULL: writes survive power loss (env LSNODE_SYNC_FULL)", "LSNODE_SYNC_FULL"),
		sseMaxClients: intFlag(fs, "sse-max-clients", e.sseMaxClients(def.HTTP.SSEMaxClients),
			"most concurrent /logstream/stream clients; 0 refuses streams (env LSNODE_SSE_MAX_CLIENTS or MEMPALACE_SSE_MAX_CLIENTS)"),
		allowInsecure: e.Switch("allow-insecure-no-token",
			"allow a non-loopback bind without a token, behind a trusted fronting layer (env LSNODE_ALLOW_INSECURE_NO_TOKEN)",
			"LSNODE_ALLOW_INSECURE_NO_TOKEN", "MEMPALACE_MCP_HTTP_ALLOW_INSECURE_NO_TOKEN"),
		extraHosts: e.List("extra-allowed-hosts",
			"comma-separated host or host:port values a loopback bind also accepts in Host (env LSNODE_EXTRA_ALLOWED_HOSTS)",
			"LSNODE_EXTRA_ALLOWED_HOSTS", "MEMPALACE_MCP_EXTRA_ALLOWED_HOSTS"),
		readCacheMB: e.Int("read-cache-mb", int(def.Store.TailCacheBytes>>20),
			"MiB of the newest events kept decoded in memory to answer lists; 0 turns the cache off (env LSNODE_READ_CACHE_MB)", "LSNODE_READ_CACHE_MB"),
		commitLinger: e.Duration("commit-linger", def.Store.CommitLinger,
			"how long the store may hold a small transaction open for more writes, while that gathers some, so one commit carries several; 0 commits at once (env LSNODE_COMMIT_LINGER)",
			"LSNODE_COMMIT_LINGER"),
		shutdownTimeout: e.Duration("shutdown-timeout", 10*time.Second, "how long shutdown waits for in-flight requests"),
		logLevel:        e.String("log-level", "info", "debug, info, warn or error (env LSNODE_LOG_LEVEL)", "LSNODE_LOG_LEVEL"),
		cluster:         addClusterFlags(e),
		limits:          addLimitFlags(e),
		console:         addConsoleFlags(e),
		memory:          addMemoryLimitFlag(e),
	}
}

// sseMaxClients reads the stream cap's variables as the Python hub does:
// garbage falls back to the file's value or def, a negative value clamps
// to 0.
func (e *serveEnv) sseMaxClients(def int) int {
	under := int(e.file.int64Or("sse-max-clients", int64(def)))
	_, v := e.env.first("LSNODE_SSE_MAX_CLIENTS", "MEMPALACE_SSE_MAX_CLIENTS")
	if v == "" {
		return under
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return under
	}
	return max(n, 0)
}

// tokenFile is --token-file's default: LSNODE_TOKEN_FILE, else the file's
// unless a token variable is set (the environment beats the file), else
// none.
func (e *serveEnv) tokenFile() string {
	under := e.file.stringOr("token-file", "")
	if _, v := e.env.first(tokenVars...); v != "" {
		under = ""
	}
	return e.env.or(under, "LSNODE_TOKEN_FILE")
}

// config turns the parsed flags into a node configuration.
func (f *serveFlags) config(logger *slog.Logger) (node.Config, error) {
	if err := f.checkValues(); err != nil {
		return node.Config{}, err
	}
	token, _, err := resolveToken(f.env.env, *f.tokenFile)
	if err != nil {
		return node.Config{}, err
	}
	return f.nodeConfig(token, logger)
}

// checkValues refuses what is wrong in the configuration file, the
// variables that do not parse and the values only serve reads.
func (f *serveFlags) checkValues() error {
	if err := f.env.err(); err != nil {
		return err
	}
	if *f.shutdownTimeout < 0 {
		return usageErrorf("--shutdown-timeout %v: must not be negative", *f.shutdownTimeout)
	}
	return nil
}

// nodeConfig is the node configuration of the flags, with token as the
// bearer token.
func (f *serveFlags) nodeConfig(token string, logger *slog.Logger) (node.Config, error) {
	cfg := node.DefaultConfig()
	cfg.DataDir, cfg.HTTP.Addr, cfg.MCP.ReadOnly = *f.data, *f.httpAddr, *f.readOnly
	cfg.Auth = auth.Config{Token: token, TokensFile: *f.tokensFile, AllowInsecureNoToken: *f.allowInsecure,
		TLSCertFile: *f.tlsCert, TLSKeyFile: *f.tlsKey, TLSCAFile: *f.tlsCA}
	cfg.Store.SyncFull = *f.syncFull
	cfg.HTTP.SSEMaxClients = max(*f.sseMaxClients, 0)
	cfg.Store.TailCacheBytes = -1 // 0 MiB (or fewer): off
	if *f.readCacheMB > 0 {
		cfg.Store.TailCacheBytes = int64(*f.readCacheMB) << 20
	}
	cfg.Store.CommitLinger = -1 // 0 (or less): commit at once
	if *f.commitLinger > 0 {
		cfg.Store.CommitLinger = *f.commitLinger
	}
	cfg.HTTP.ExtraAllowedHosts = splitList(*f.extraHosts)
	if err := f.cluster.apply(&cfg); err != nil {
		return node.Config{}, err
	}
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

// serveFlagsOf defines serve's flags on fs, with the file of args'
// --config (read before the flags are defined: its values are their
// defaults), and parses args.
func serveFlagsOf(fs *flagSet, args []string, env environ) (*serveFlags, error) {
	var file *configFile
	path := configArg(args)
	if path != "" {
		var err error
		if file, err = readConfigFile(path); err != nil {
			return nil, usageErrorf("--config: %w", err)
		}
	}
	f := addServeFlags(fs.FlagSet, env, file)
	if err := parseFlags(fs, args, false); err != nil {
		return nil, err
	}
	if *f.configPath != path {
		// Only a --config the scan above misread (a flag's value that
		// looks like it) gets here.
		return nil, usageErrorf("--config %q: give it as --config=FILE", *f.configPath)
	}
	return f, nil
}

// configArg is the value of the last --config (or -config) of args, up
// to a "--"; "" when there is none.
func configArg(args []string) string {
	var path string
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "config" {
			continue
		}
		switch {
		case hasValue:
			path = value
		case i+1 < len(args):
			path = args[i+1]
		}
	}
	return path
}

// runServe runs one node in the foreground until SIGINT or SIGTERM (ctx),
// then shuts it down in phases: stop accepting, end streams, finish
// in-flight requests, close the store. It holds the data dir's lock
// (internal/datadir) from before the node touches the dir until after the
// store is closed: a second serve on the dir is refused, naming this one.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stdout, stderr)
	f, err := serveFlagsOf(fs, args, osEnv)
	if err != nil {
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
	// anything else in the data dir is created or opened. A start that
	// fails (a port in use, found once the store is open) takes back what
	// it created in a dir that held nothing.
	lock, err := datadir.Acquire(cfg.DataDir)
	if err != nil {
		return err
	}
	if err := n.Start(ctx); err != nil {
		return errors.Join(err, lock.Undo())
	}
	defer lock.Release()
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
