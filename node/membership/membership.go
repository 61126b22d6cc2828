package membership

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/memberlist"
)

// updateMetaTimeout bounds UpdateMeta's wait for its broadcast to go out.
const updateMetaTimeout = 5 * time.Second

// Membership is this node's view of the cluster: a memberlist instance,
// the table of every node heard of, the goroutine that reports changes to
// the Handler, the one that rejoins known peers, the one that notices
// this process stalled (stall.go) and, while a failed Join is retried,
// the one that retries it (join.go). It is safe for concurrent use.
type Membership struct {
	cfg     Config
	log     *slog.Logger // this package's lines
	baseLog *slog.Logger // Config.Logger or a discarding one, for memberlist's lines
	handler Handler
	ml      *memberlist.Memberlist
	table   *table
	known   *knownPeers
	metrics *metrics

	events chan event     // bounded: delegates never block on it
	kick   chan struct{}  // cap 1: "reconcile soon" after a drop
	stop   chan struct{}  // closed by Shutdown
	wg     sync.WaitGroup // the goroutines started by goFunc

	// reported is what the Handler was told; only the events goroutine
	// touches it.
	reported map[string]reportedState

	left atomic.Bool // Leave was called: no more rejoins

	// lifecycle serialises UpdateMeta, Leave and Shutdown (and guards
	// shut). It is never taken by delegates or by the goroutines that
	// Shutdown waits for.
	lifecycle sync.Mutex
	shut      bool

	// seedsMu guards seeds, the addresses given to Join, and join, the
	// state of its retries (join.go).
	seedsMu sync.Mutex
	seeds   []string
	join    joinState

	// metaMu guards the announced metadata, which NodeMeta reads from
	// memberlist's loops: meta as given and its encoding.
	metaMu  sync.Mutex
	meta    Meta
	metaEnc []byte

	// Keyring operations (keyops.go, keymsg.go). keyring is memberlist's
	// (nil without encryption). opMu runs this node's operations one at a
	// time; keyMu serialises changes to the keyring and its file. keyReqs
	// feeds the keyring goroutine the requests of other members; pending
	// routes replies to the operation waiting for them.
	keyring *memberlist.Keyring
	opMu    sync.Mutex
	keyMu   sync.Mutex
	keyReqs chan keyRequest
	pending pendingReplies
}

// Create validates cfg, starts memberlist on cfg.BindAddr (listening at
// once) and the Membership's goroutines, and rejoins the known peers of
// cfg.DataDir in the background. handler may be nil. Call Join to contact
// seeds, and Leave then Shutdown to stop.
func Create(cfg Config, handler Handler) (*Membership, error) {
	cfg = cfg.withDefaults()
	if cfg.Name == "" {
		return nil, fmt.Errorf("%w: Name is required (the host name could not be read)", ErrInvalidConfig)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if handler == nil {
		handler = nopHandler{}
	}
	mc := cfg.memberlistConfig()
	m := newMembership(cfg, handler, mc.ProbeInterval)
	if err := m.setMeta(cfg.Meta, false); err != nil {
		return nil, err
	}
	known, err := loadKnownPeers(cfg.DataDir, cfg.ClusterID, cfg.Name)
	if err != nil {
		m.log.Warn("known peers file ignored", "err", err)
	}
	m.known = known
	m.warnIfInsecure()
	m.attach(mc)
	m.keyring = mc.Keyring
	ml, err := memberlist.Create(mc)
	if err != nil {
		return nil, fmt.Errorf("membership: start memberlist on %s: %w", cfg.BindAddr, err)
	}
	m.ml = ml
	if err := m.metrics.register(); err != nil {
		_ = ml.Shutdown()
		return nil, fmt.Errorf("membership: register metrics: %w", err)
	}
	m.goFunc(m.runEvents)
	m.goFunc(m.runRejoin)
	m.goFunc(m.runKeyRequests)
	if !cfg.noStallWatch {
		m.goFunc(m.runStallWatch)
	}
	return m, nil
}

func newMembership(cfg Config, handler Handler, probe time.Duration) *Membership {
	base := cfg.Logger
	if base == nil {
		base = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &Membership{
		cfg:      cfg,
		log:      base.With("component", "membership", "node", cfg.Name),
		baseLog:  base.With("node", cfg.Name),
		handler:  handler,
		table:    newTable(cfg.Name, probe, time.Now),
		events:   make(chan event, cfg.EventQueue),
		kick:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		keyReqs:  make(chan keyRequest, keyRequests),
		reported: map[string]reportedState{},
	}
	m.metrics = newMetrics(cfg.Registerer, m.countStates)
	return m
}

// goFunc runs f in a goroutine that Shutdown waits for.
func (m *Membership) goFunc(f func()) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
}

// warnIfInsecure logs when gossip leaves this host unencrypted.
func (m *Membership) warnIfInsecure() {
	host, _, _ := splitBind(m.cfg.BindAddr)
	if ip := net.ParseIP(host); len(m.cfg.Keyring) == 0 && (ip == nil || !ip.IsLoopback()) {
		m.log.Warn("gossip is not encrypted on a non-loopback address; set a gossip key file", "bind", m.cfg.BindAddr)
	}
}

// Leave announces that this node is leaving, so the others mark it left
// rather than dead, and waits up to timeout for the announcement to go
// out. It stops the rejoin loop. Call Shutdown afterwards.
//
// The announcement has three steps: metadata flagged as leaving (memberlist
// does not tell the others whether a node left or died, see tagLeaving),
// a leaving notice sent to each member directly (leave.go), then
// memberlist's own leave. timeout bounds them together.
func (m *Membership) Leave(timeout time.Duration) error {
	m.lifecycle.Lock()
	defer m.lifecycle.Unlock()
	if m.shut {
		return ErrShutdown
	}
	m.left.Store(true)
	deadline := time.Now().Add(timeout)
	if err := m.setMeta(m.currentMeta(), true); err != nil {
		return err
	}
	if err := m.ml.UpdateNode(timeout); err != nil {
		m.log.Warn("leaving flag not confirmed; peers may see this node as dead", "err", err)
	}
	m.announceLeaving(deadline)
	rest := time.Until(deadline)
	if timeout > 0 && rest < time.Millisecond {
		rest = time.Millisecond
	}
	if timeout <= 0 {
		rest = timeout
	}
	if err := m.ml.Leave(rest); err != nil {
		return fmt.Errorf("membership: leave: %w", err)
	}
	return nil
}

// Shutdown stops memberlist without announcing anything (a crash, as far
// as the others can tell, unless Leave was called first), stops and joins
// the Membership's goroutines, saves the known peers and unregisters the
// metrics. It is idempotent. A rejoin attempt or a reassertion after a
// stall in flight is not interrupted: Shutdown may wait for it, up to
// memberlist's TCPTimeout (10 s) for a peer that does not answer.
func (m *Membership) Shutdown() error {
	m.lifecycle.Lock()
	defer m.lifecycle.Unlock()
	if m.shut {
		return nil
	}
	m.shut = true
	if !m.left.Load() {
		m.log.Info("shutting down without leaving: peers will see this node fail")
	}
	err := m.ml.Shutdown()
	close(m.stop)
	m.wg.Wait()
	if ferr := m.known.save(); ferr != nil {
		m.log.Warn("save known peers", "err", ferr)
	}
	m.metrics.unregister()
	if err != nil {
		return fmt.Errorf("membership: shutdown: %w", err)
	}
	return nil
}

// Members returns every node this node knows of, sorted by name: itself,
// alive and suspect members, dead and left members until ForgetAfter, and
// refused nodes while they keep trying.
//
// The list comes from this package's table, which memberlist's delegates
// keep current, not from memberlist.Members(), whose nodes memberlist
// keeps changing after it returns them.
func (m *Membership) Members() []Member {
	return m.table.snapshot()
}

// LocalNode returns this node as the others see it: alive, or left once
// Leave was called.
func (m *Membership) LocalNode() Member {
	for _, mem := range m.table.snapshot() {
		if mem.Name == m.cfg.Name {
			if m.left.Load() {
				mem.State = StateLeft
			}
			return mem
		}
	}
	return Member{Name: m.cfg.Name, State: StateAlive} // not reached: memberlist announces itself in Create
}

// UpdateMeta announces new metadata (its ClusterID is replaced by
// Config.ClusterID). Metadata whose encoding exceeds
// memberlist.MetaMaxSize is refused with ErrMetaTooLarge before anything
// is announced.
func (m *Membership) UpdateMeta(meta Meta) error {
	m.lifecycle.Lock()
	defer m.lifecycle.Unlock()
	if m.shut {
		return ErrShutdown
	}
	if err := m.setMeta(meta, m.left.Load()); err != nil {
		return err
	}
	if err := m.ml.UpdateNode(updateMetaTimeout); err != nil {
		return fmt.Errorf("membership: announce metadata: %w", err)
	}
	return nil
}

// setMeta encodes meta with this cluster's id (and the leaving flag) and
// stores it for NodeMeta.
func (m *Membership) setMeta(meta Meta, leaving bool) error {
	meta.ClusterID = m.cfg.ClusterID
	b, err := encodeMeta(meta, leaving)
	if err != nil {
		return err
	}
	m.metaMu.Lock()
	m.meta, m.metaEnc = meta, b
	m.metaMu.Unlock()
	return nil
}

func (m *Membership) currentMeta() Meta {
	m.metaMu.Lock()
	defer m.metaMu.Unlock()
	return m.meta
}

func (m *Membership) metaBytes() []byte {
	m.metaMu.Lock()
	defer m.metaMu.Unlock()
	return m.metaEnc
}

// admit decides whether node n may be a member: its metadata must decode
// and name this cluster. A refusal is recorded, counted and reported.
func (m *Membership) admit(n *memberlist.Node) error {
	meta, err := DecodeMeta(n.Meta)
	if err != nil {
		m.refuse(n, meta, fmt.Sprintf("undecodable metadata: %v", err))
		return err
	}
	if meta.ClusterID != m.cfg.ClusterID {
		m.refuse(n, meta, fmt.Sprintf("cluster id %q, want %q", meta.ClusterID, m.cfg.ClusterID))
		return fmt.Errorf("%w: %q", ErrClusterMismatch, meta.ClusterID)
	}
	return nil
}

func (m *Membership) refuse(n *memberlist.Node, meta Meta, reason string) {
	mem := Member{Name: n.Name, Addr: nodeAddr(n), Meta: meta, Reason: reason, State: StateRefused}
	if !m.table.refuse(mem) {
		return
	}
	m.metrics.refused.Inc()
	m.enqueue(event{name: n.Name})
}

// appendNew appends the values of add not already in list.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		found := false
		for _, l := range list {
			found = found || l == a
		}
		if !found {
			list = append(list, a)
		}
	}
	return list
}
