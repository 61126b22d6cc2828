package hubpull

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lsnode/lsnode/hlc"
	"github.com/lsnode/lsnode/internal/pyhub/rules"
	"github.com/lsnode/lsnode/store"
)

// Log is what the HTTP puller needs from the coordination log;
// *store.Store provides it.
type Log interface {
	// ReplicaID names this replica; its own origin is never pulled.
	ReplicaID() string
	// VersionVector returns origin -> top origin_seq held.
	VersionVector() map[string]int64
	// ApplyBatch stores remote artifacts and ops idempotently; bad ops
	// are quarantined, an error means the storage failed.
	ApplyBatch(ctx context.Context, b store.Batch) (store.ApplyResult, error)
	// MissingArtifacts returns the ids among ids that are not held.
	MissingArtifacts(ctx context.Context, ids []string) ([]string, error)
}

var _ Log = (*store.Store)(nil)

// Puller pulls the log from HTTP peers listed in a peers.json — Python
// mempalace hubs, or lsnode nodes' HTTP surfaces — with the Python hub's
// protocol: GET /sync/version_vector, then for every origin the peer
// holds beyond this node (third-party origins included, this node's own
// excluded) GET /sync/ops pages after the local top, and GET
// /sync/artifact for each artifact a page names that is not held. Every page is applied with ApplyBatch, its ops chained by PrevSeq
// (the first op's PrevSeq is the page's after=, each next op's the
// previous op's origin_seq), so Python origins whose origin_seq has gaps
// are applied in order and never leave a hole.
//
// Unlike the Python puller, nothing wedges: a bad op is quarantined by
// the store and the origin moves past it; an artifact the peer does not
// serve (404) or serves corrupt stops that origin for this round only,
// recorded in the peer's status, and is retried next round (a corrupt one
// after refusedRetryRounds rounds); one peer's failure never affects the
// other peers of the round.
//
// peers.json is re-read every round. Tokens never appear in statuses,
// results, errors, logs or metrics.
//
// Goroutines: the loop (Start) and, during a round, one per peer (at
// most Config.Parallel pulling at once), joined before the round returns.
// Stop cancels and joins everything. Lock order: round, then mu; mu is
// never held across a request or a Log call.
type Puller struct {
	cfg    Config
	log    Log
	hc     *http.Client
	wall   hlc.WallClock
	logger *slog.Logger
	m      *httpMetrics

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	round  sync.Mutex // one round at a time

	mu struct {
		sync.Mutex
		started, stopped bool
		rounds           uint64
		order            []string // peer labels in file order
		peers            map[string]*httpPeerState
		fileErr          string // "" when the last read succeeded
	}
}

// NewPuller validates cfg and returns a stopped puller over log.
func NewPuller(cfg Config, log Log) (*Puller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Wall == nil {
		cfg.Wall = hlc.SystemClock{}
	}
	if cfg.NewTicker == nil {
		cfg.NewTicker = newSystemTicker
	}
	transport := cfg.Transport
	if transport == nil {
		transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	p := &Puller{
		cfg:    cfg,
		log:    log,
		hc:     &http.Client{Transport: transport, Timeout: cfg.Timeout},
		wall:   cfg.Wall,
		logger: cfg.Logger.With("component", "httppull"),
		m:      newHTTPMetrics(cfg.Metrics),
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.mu.peers = map[string]*httpPeerState{}
	return p, nil
}

// Start runs one round now and then one every Interval until Stop (no
// loop when Interval is 0). ctx only bounds Start itself.
func (p *Puller) Start(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.mu.stopped:
		return ErrStopped
	case p.mu.started:
		return ErrStarted
	}
	p.mu.started = true
	if p.cfg.Interval <= 0 {
		p.logger.Info("http pull loop disabled (interval 0)", "peers_file", p.cfg.PeersFile)
		return nil
	}
	t := p.cfg.NewTicker(p.cfg.Interval)
	p.goFunc(func() { p.loop(t) })
	return nil
}

// Stop cancels a round in progress, ends the loop and waits for every
// goroutine. It is idempotent.
func (p *Puller) Stop() {
	p.mu.Lock()
	p.mu.stopped = true
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
}

func (p *Puller) loop(t Ticker) {
	defer t.Stop()
	for {
		results := p.SyncOnce(p.ctx)
		if p.ctx.Err() != nil {
			return
		}
		if p.cfg.AfterRound != nil {
			p.cfg.AfterRound(results)
		}
		select {
		case <-p.ctx.Done():
			return
		case <-t.C():
		}
	}
}

// goFunc runs fn in a goroutine joined by Stop.
func (p *Puller) goFunc(fn func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		fn()
	}()
}

// SyncOnce runs one round: it re-reads peers.json and pulls from every
// peer, at most Config.Parallel at once, and returns the results in file
// order. A malformed peers.json makes the round do nothing (ConfigError
// reports it, the statuses are kept). It returns nil once the puller is
// stopped or ctx is done.
func (p *Puller) SyncOnce(ctx context.Context) []PeerResult {
	p.round.Lock()
	defer p.round.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()
	if ctx.Err() != nil {
		return nil
	}
	peers, err := LoadPeersFile(p.cfg.PeersFile)
	p.setFileError(err)
	if err != nil {
		return nil
	}
	states, round := p.beginRound(peers)
	results := make([]PeerResult, len(peers))
	sem := make(chan struct{}, p.cfg.Parallel)
	var wg sync.WaitGroup
	for i, st := range states {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = p.pullPeer(ctx, st, round)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil // stopped mid-round: the outcomes say nothing of the peers
	}
	p.endRound(states, results)
	return results
}

// beginRound installs the peers of this round (label -> state, keeping
// what was learned of peers still listed, forgetting the others) and
// returns their states in file order with the round number.
func (p *Puller) beginRound(peers []Peer) ([]*httpPeerState, uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mu.rounds++
	labels := uniqueLabels(peers)
	next := make(map[string]*httpPeerState, len(peers))
	states := make([]*httpPeerState, len(peers))
	for i, peer := range peers {
		st := p.mu.peers[labels[i]]
		if st == nil || st.peer.URL != peer.URL {
			st = &httpPeerState{status: PeerStatus{Name: labels[i], URL: RedactURL(peer.URL)}}
		}
		st.peer = peer
		next[labels[i]] = st
		states[i] = st
	}
	for label := range p.mu.peers {
		if next[label] == nil {
			p.m.forget(label)
			p.logger.Info("http peer removed from peers.json", "peer", label)
		}
	}
	p.mu.peers, p.mu.order = next, labels
	return states, p.mu.rounds
}

// uniqueLabels labels each peer by name (else URL), suffixing repeats
// with "#2", "#3", ... so statuses and metric series stay apart.
func uniqueLabels(peers []Peer) []string {
	seen := map[string]int{}
	out := make([]string, len(peers))
	for i, peer := range peers {
		l := peer.Label()
		seen[l]++
		if n := seen[l]; n > 1 {
			l += "#" + strconv.Itoa(n)
		}
		out[i] = l
	}
	return out
}

// endRound folds the results into the statuses, metrics and logs.
func (p *Puller) endRound(states []*httpPeerState, results []PeerResult) {
	now := p.wall.Now()
	local := p.log.VersionVector()
	self := p.log.ReplicaID()
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, st := range states {
		if p.mu.peers[st.status.Name] != st {
			continue // replaced by a later round meanwhile (cannot happen: rounds are serial)
		}
		r := results[i]
		before := st.status
		st.apply(r, now)
		p.m.pull(r.Result())
		p.m.peer(st.status.Name, st.status.Reachable, lag(st.status.RemoteVersionVector, local, self))
		p.logOutcome(st.peer, before, r)
	}
}

// logOutcome logs a peer's round: problems when they appear or change,
// recovery, and pulls that stored something.
func (p *Puller) logOutcome(peer Peer, before PeerStatus, r PeerResult) {
	attrs := []any{"peer", peer, "replica", r.ReplicaID}
	switch text := r.Error(); {
	case r.Err != nil && (before.Reachable || !before.Synced || before.LastError != text):
		p.logger.Warn("http sync with peer failed", append(attrs, "err", text)...)
	case r.Err != nil:
		p.logger.Debug("http sync with peer still failing", append(attrs, "err", text)...)
	case text != "" && text != before.LastError:
		p.logger.Warn("http sync with peer incomplete; stopped origins are retried next round", append(attrs, "err", text)...)
	case text == "" && before.Synced && before.LastError != "":
		p.logger.Info("http sync with peer recovered", attrs...)
	}
	if r.PulledEvents > 0 || r.PulledArtifacts > 0 || r.Quarantined > 0 {
		p.logger.Info("pulled from http peer", append(attrs, "events", r.PulledEvents, "artifacts", r.PulledArtifacts,
			"quarantined", r.Quarantined, "per_origin", r.PerOrigin)...)
	}
}

func (p *Puller) setFileError(err error) {
	text := ""
	if err != nil {
		text = err.Error()
	}
	p.m.peersFile(err == nil)
	p.mu.Lock()
	defer p.mu.Unlock()
	if text == p.mu.fileErr {
		return
	}
	if err != nil {
		p.logger.Error("peers file unusable; http sync rounds skipped until it is fixed", "err", text)
	} else {
		p.logger.Info("peers file usable again", "path", p.cfg.PeersFile)
	}
	p.mu.fileErr = text
}

// ConfigError is the last peers.json error ("" when the last read
// succeeded or the file is absent).
func (p *Puller) ConfigError() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.fileErr
}

// Status returns the HTTP roster in peers.json order, as of the last
// round, with LagOps computed against the current local vector.
func (p *Puller) Status() []PeerStatus {
	local := p.log.VersionVector()
	self := p.log.ReplicaID()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PeerStatus, 0, len(p.mu.order))
	for _, label := range p.mu.order {
		st := copyStatus(p.mu.peers[label].status)
		st.LagOps = lag(st.RemoteVersionVector, local, self)
		out = append(out, st)
	}
	return out
}

// Interval is the loop period (0: no loop), for the roster's
// sync_interval_s.
func (p *Puller) Interval() time.Duration { return p.cfg.Interval }

// describe renders an id list for an error text, bounded.
func describe(ids []string) string {
	if len(ids) > maxShownProblems {
		return fmt.Sprintf("%s and %d more", quoteIDs(ids[:maxShownProblems]), len(ids)-maxShownProblems)
	}
	return quoteIDs(ids)
}

// quoteIDs renders ids as Python's repr of a list of strings.
func quoteIDs(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = rules.Repr(id)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
