package node

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/node/auth"
	"github.com/lsnode/lsnode/node/httpapi"
	"github.com/lsnode/lsnode/store"
	"github.com/lsnode/lsnode/sync/hubpull"
	"github.com/lsnode/lsnode/sync/integrity"
)

// Node is one lsnode: the store, the HTTP surface and (later) replication
// and membership, with one lifecycle. Create it with New, then Start;
// Shutdown stops everything Start began and closes the store.
type Node struct {
	cfg  Config
	log  *slog.Logger
	reg  *prometheus.Registry
	wall hlc.WallClock

	tokens *auth.Tokens // nil without a tokens file

	// Set by Start.
	store    *store.Store
	cluster  *cluster        // nil without replication
	httpPull *hubpull.Puller // nil when the HTTP pull is off
	api      *httpapi.Server
	srv      *http.Server
	ln       net.Listener
	url      string

	// integrity signs this node's ops and verifies its peers' (set by
	// Start; integrity.go).
	integrity *integrity.Integrity

	// drain is cancelled when shutdown begins: streams and long polls
	// end, in-flight requests finish.
	drain       context.Context
	cancelDrain context.CancelFunc
	// run is the context of the node's own goroutines, cancelled after
	// the HTTP server has stopped. Replication (grpcpeer.Replicator) and
	// membership start in Start with n.goFunc under it, feed /sync/peers
	// (liveRoster), and so stop before the store closes.
	run       context.Context
	cancelRun context.CancelFunc
	wg        sync.WaitGroup
	failed    chan error // the first fatal error of a node goroutine

	mu struct {
		sync.Mutex
		started, stopped bool
	}
}

// New checks cfg and prepares a node; it starts nothing.
func New(cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, log: cfg.Logger, reg: cfg.Registry, wall: cfg.Wall, failed: make(chan error, 1)}
	if n.log == nil {
		n.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if n.reg == nil {
		n.reg = newRegistry()
	}
	if n.wall == nil {
		n.wall = hlc.SystemClock{}
	}
	if err := n.loadTokens(); err != nil {
		return nil, err
	}
	n.drain, n.cancelDrain = context.WithCancel(context.Background())
	n.run, n.cancelRun = context.WithCancel(context.Background())
	return n, nil
}

// Start opens the store, binds the HTTP listener and serves. It returns
// once the node accepts requests; a failure leaves nothing running.
func (n *Node) Start(ctx context.Context) (err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.mu.started || n.mu.stopped {
		return errors.New("node: already started")
	}
	tlsCfg, err := auth.ServerTLS(n.cfg.Auth.TLSCertFile, n.cfg.Auth.TLSKeyFile, n.log)
	if err != nil {
		return err
	}
	if n.store, err = n.openStore(ctx); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			n.store.Close()
		}
	}()
	if n.integrity, err = n.openIntegrity(ctx); err != nil {
		return err
	}
	if err := n.listen(tlsCfg); err != nil {
		return err
	}
	if err := n.startCluster(ctx); err != nil {
		n.ln.Close()
		return err
	}
	n.api.RegisterReadyGauge()
	if err := n.startHTTPPull(ctx); err != nil {
		if n.cluster != nil {
			n.cluster.stop(n)
		}
		n.ln.Close()
		return err
	}
	n.startRecovery() // recovery.go
	n.goFunc(func() {
		if err := n.srv.Serve(n.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.fail(fmt.Errorf("http server: %w", err))
		}
	})
	n.mu.started = true
	n.log.Info("lsnode serving", "url", n.url, "replica", n.store.ReplicaID(), "data", n.cfg.DataDir,
		"read_only", n.cfg.MCP.ReadOnly, "auth", n.cfg.Auth.Token != "" || n.tokens != nil, "agent_tokens", n.tokenCount())
	if n.cfg.Auth.Token == "" && n.tokens == nil && !auth.IsLoopbackHost(n.bindHost()) {
		n.log.Warn("bound to a non-loopback host without a bearer token because --allow-insecure-no-token is set",
			"host", n.bindHost())
	}
	return nil
}

func (n *Node) openStore(ctx context.Context) (*store.Store, error) {
	// MCP.ReadOnly leaves the store writable: a read-only node refuses
	// writes at the MCP layer but still applies what replication brings,
	// as the Python hub's puller does.
	cfg := n.cfg.storeConfig()
	cfg.Wall, cfg.Logger, cfg.Metrics = n.wall, n.log, n.reg
	st, err := store.Open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open store in %s: %w", n.cfg.DataDir, err)
	}
	return st, nil
}

// listen binds the HTTP address and builds the surface for the port
// actually bound.
func (n *Node) listen(tlsCfg *tls.Config) error {
	ln, err := net.Listen("tcp", n.cfg.HTTP.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", n.cfg.HTTP.Addr, err)
	}
	host := n.bindHost()
	port := ln.Addr().(*net.TCPAddr).Port
	scheme := "http"
	if tlsCfg != nil {
		scheme = "https"
		ln = tls.NewListener(ln, tlsCfg)
	}
	n.ln = ln
	apiOpts := n.httpOptions(host, port, scheme)
	n.srv = httpapi.NewHTTPServer(apiOpts, n.surfaces(apiOpts, n.store), tlsCfg)
	n.srv.RegisterOnShutdown(n.cancelDrain) // runs once the listener is closed
	n.url = scheme + "://" + net.JoinHostPort(urlHost(host), strconv.Itoa(port))
	return nil
}

// bindHost is the host of the HTTP bind address.
func (n *Node) bindHost() string {
	host, _, _ := net.SplitHostPort(n.cfg.HTTP.Addr)
	return host
}

// urlHost is the host clients dial for a bind host: a wildcard bind is
// reached on loopback.
func urlHost(host string) string {
	switch host {
	case "", "0.0.0.0", "::":
		return "127.0.0.1"
	}
	return host
}

// URL is the base URL of the HTTP surface ("http://127.0.0.1:8765"),
// valid after Start.
func (n *Node) URL() string { return n.url }

// Store is the node's log, valid after Start.
func (n *Node) Store() *store.Store { return n.store }

// Failed delivers the first fatal error of a running node (the HTTP
// server stopped serving).
func (n *Node) Failed() <-chan error { return n.failed }

// goFunc runs fn as a goroutine owned by the node: Shutdown waits for it.
func (n *Node) goFunc(fn func()) {
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		fn()
	}()
}

func (n *Node) fail(err error) {
	n.log.Error("node failed", "err", err)
	select {
	case n.failed <- err:
	default:
	}
}

// Shutdown stops the node in phases, logging each: stop accepting
// connections and end streams and long polls, wait for in-flight
// requests (until ctx expires, then close what is left), stop the node's
// goroutines, close the store. It is safe to call more than once.
func (n *Node) Shutdown(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.mu.started || n.mu.stopped {
		return nil
	}
	n.mu.stopped = true
	n.log.Info("shutdown: stopped accepting connections; closing streams", "sse_streams", n.api.OpenStreams())
	var errs []error
	if err := n.srv.Shutdown(ctx); err != nil {
		n.log.Warn("shutdown: in-flight requests did not finish in time; closing connections", "err", err)
		errs = append(errs, err, n.srv.Close())
	} else {
		n.log.Info("shutdown: in-flight requests finished")
	}
	if n.httpPull != nil {
		n.httpPull.Stop()
	}
	if n.cluster != nil {
		n.cluster.stop(n)
		n.log.Info("shutdown: left the mesh; replication stopped")
	}
	n.cancelRun()
	n.wg.Wait()
	n.log.Info("shutdown: background tasks stopped")
	if err := n.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
	} else {
		n.log.Info("shutdown: store closed")
	}
	return errors.Join(errs...)
}
