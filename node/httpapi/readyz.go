package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/lsnode/lsnode/internal/pyhub/pyjson"
)

// ReadyThresholds are the limits past which /readyz answers 503. A
// negative limit is not checked. Each can be overridden per request by
// the query parameter of the same name (max_lag_ops, max_quarantined,
// min_alive_peers).
type ReadyThresholds struct {
	// MaxLagOps is the most ops any replication peer may hold that this
	// node lacks (from version vectors). Default -1 (not checked): a node
	// catching up still serves what it has.
	MaxLagOps int64
	// MaxQuarantined is the most remote items this node may have
	// refused. Default -1 (not checked).
	MaxQuarantined int64
	// MinAlivePeers is how many replication peers must be connected.
	// Default 0.
	MinAlivePeers int64
}

// DefaultReadyThresholds checks nothing a single node cannot meet.
func DefaultReadyThresholds() ReadyThresholds {
	return ReadyThresholds{MaxLagOps: -1, MaxQuarantined: -1, MinAlivePeers: 0}
}

// readyCheck is one threshold and what was measured.
type readyCheck struct {
	name      string
	value     int64
	threshold int64
	atMost    bool // value must be <= threshold (else >=)
}

func (c readyCheck) ok() bool {
	if c.threshold < 0 {
		return true
	}
	if c.atMost {
		return c.value <= c.threshold
	}
	return c.value >= c.threshold
}

// handleReadyz answers 200 when every threshold holds and 503 otherwise,
// with a JSON body naming each check and the ones that failed.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	th, err := readyThresholds(s.cfg.Readiness, r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	checks, err := s.readyChecks(r.Context(), th)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	failed := failedChecks(checks)
	ready := len(failed) == 0
	list := make([]any, 0, len(checks))
	for _, c := range checks {
		list = append(list, pyjson.Object{
			{Key: "name", Value: c.name}, {Key: "value", Value: c.value},
			{Key: "threshold", Value: c.threshold}, {Key: "ok", Value: c.ok()},
		})
	}
	code := http.StatusOK
	if !ready {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, pyjson.Object{{Key: "ready", Value: ready}, {Key: "failed", Value: failed}, {Key: "checks", Value: list}})
}

// readyScrapeTimeout bounds the checks a scrape of lsnode_node_ready runs.
const readyScrapeTimeout = 2 * time.Second

// RegisterReadyGauge exports lsnode_node_ready on the surface's
// registry; it runs the checks of /readyz at the configured thresholds
// on every scrape: the alert that watches it needs no probe calling
// /readyz (compose and systemd run none), and a caller's own thresholds
// on /readyz never move it. The node registers it once replication runs.
func (s *Server) RegisterReadyGauge() {
	promauto.With(s.cfg.Registry).NewGaugeFunc(prometheus.GaugeOpts{
		Name: "lsnode_node_ready",
		Help: "1 when the checks of /readyz pass at the configured thresholds, evaluated at each scrape; 0 when one fails or cannot be made.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), readyScrapeTimeout)
		defer cancel()
		checks, err := s.readyChecks(ctx, s.cfg.Readiness)
		if err != nil || len(failedChecks(checks)) > 0 {
			return 0
		}
		return 1
	})
}

// failedChecks names the checks that do not hold.
func failedChecks(checks []readyCheck) []any {
	failed := []any{}
	for _, c := range checks {
		if !c.ok() {
			failed = append(failed, c.name)
		}
	}
	return failed
}

func (s *Server) readyChecks(ctx context.Context, th ReadyThresholds) ([]readyCheck, error) {
	quarantined, err := s.store.QuarantinedCount(ctx)
	if err != nil {
		return nil, err
	}
	var lag, alive int64
	var peers []ReadyPeer
	if s.cfg.Replication != nil {
		peers = s.cfg.Replication.ReadyPeers()
	}
	for _, p := range peers {
		lag = max(lag, p.LagOps)
		if p.Connected {
			alive++
		}
	}
	return []readyCheck{
		{name: "max_lag_ops", value: lag, threshold: th.MaxLagOps, atMost: true},
		{name: "max_quarantined", value: quarantined, threshold: th.MaxQuarantined, atMost: true},
		{name: "min_alive_peers", value: alive, threshold: th.MinAlivePeers},
	}, nil
}

// readyParams are the threshold overrides GET /readyz takes.
var readyParams = []string{"max_lag_ops", "max_quarantined", "min_alive_peers"}

// readyThresholds applies the query's overrides to the defaults.
func readyThresholds(def ReadyThresholds, r *http.Request) (ReadyThresholds, error) {
	th := def
	for _, p := range []struct {
		name string
		dst  *int64
	}{{readyParams[0], &th.MaxLagOps}, {readyParams[1], &th.MaxQuarantined}, {readyParams[2], &th.MinAlivePeers}} {
		v := r.URL.Query().Get(p.name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return th, invalid(p.name + " must be an integer")
		}
		*p.dst = n
	}
	return th, nil
}
