package simnet

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"google.golang.org/protobuf/proto"

	pb "github.com/lsnode/lsnode/proto/lsnode/v1"
	lssync "github.com/lsnode/lsnode/sync"
)

// Faults are per-frame fault rates applied to every link, drawn from the
// network's seeded RNG. Random delays in [MinDelay, MaxDelay] reorder frames.
type Faults struct {
	Drop      float64 // probability a frame is lost
	Duplicate float64 // probability a frame is delivered twice
	MinDelay  time.Duration
	MaxDelay  time.Duration
}

// Config configures a Network.
type Config struct {
	Seed        uint64
	Link        lssync.Config // config of every Link
	Faults      Faults
	TickEvery   time.Duration // node timer period; default Link.TickInterval
	RedialAfter time.Duration // wait before reconnecting a dropped session; default 1s
	SubBuffer   int           // subscription buffer per node; default 64
	// Integrity, when set, gives a node's links their origin integrity
	// (lssync.Config.Integrity) over the node's log; it is called whenever
	// a node is added or started again (a reopened store needs a new one).
	Integrity func(name string, log lssync.Log) (lssync.Integrity, error)
	// ApplyBehind runs every link as a session does (Link.ApplyBehind):
	// a received batch is stored after a random delay up to ApplyDelay,
	// each link's batches in order, while its frames keep flowing.
	ApplyBehind bool
	ApplyDelay  time.Duration
}

// Stats counts what crossed the network.
type Stats struct {
	Frames      map[string]int // delivered, by kind
	Bytes       map[string]int // delivered payload bytes, by kind
	Dropped     int
	Duplicated  int
	SessionsRun int
	Ended       map[string]int // sessions ended, by reason
}

// Network is a seeded discrete-event simulation of lsnode nodes linked by
// sessions. Each node has a wall clock skewed from virtual time. Connect
// declares a dialer -> listener edge; a session runs on it whenever both
// nodes are up and in the same partition group.
type Network struct {
	cfg    Config
	rng    *rand.Rand
	now    time.Time
	nodes  map[string]*node
	names  []string
	edges  []*edge
	queue  eventQueue
	seq    uint64
	nextID uint64
	faults Faults
	links  map[[2]string]Faults // per-link overrides, by sorted name pair
	stats  Stats
	fatal  error
}

type node struct {
	name  string
	log   lssync.Log
	in    lssync.Integrity // nil without Config.Integrity
	skew  time.Duration
	up    bool
	group int
	sub   lssync.Subscription
}

type edge struct {
	dialer, listener string
	sess             *session
	nextDial         time.Time
}

type session struct {
	id    uint64
	edge  *edge
	links [2]*lssync.Link // 0 = dialer end, 1 = listener end
	// storeAt is when each end's last queued batch is stored
	// (Config.ApplyBehind): batches of one end are stored in order.
	storeAt [2]time.Time
}

// New returns an empty network at virtual time 2026-01-01.
func New(cfg Config) *Network {
	if cfg.TickEvery == 0 {
		cfg.TickEvery = cfg.Link.TickInterval
	}
	if cfg.RedialAfter == 0 {
		cfg.RedialAfter = time.Second
	}
	if cfg.SubBuffer == 0 {
		cfg.SubBuffer = 64
	}
	return &Network{
		cfg:    cfg,
		rng:    rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		now:    time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		nodes:  map[string]*node{},
		faults: cfg.Faults,
		links:  map[[2]string]Faults{},
		stats:  Stats{Frames: map[string]int{}, Bytes: map[string]int{}, Ended: map[string]int{}},
	}
}

// Now is the network's virtual time.
func (n *Network) Now() time.Time { return n.now }

// NodeNow is name's wall clock: virtual time plus its skew (none for a
// node not added yet, whose log may read the clock while it opens).
func (n *Network) NodeNow(name string) time.Time {
	if nd, ok := n.nodes[name]; ok {
		return n.now.Add(nd.skew)
	}
	return n.now
}

// Rand is the network's seeded RNG, for scenarios to draw from.
func (n *Network) Rand() *rand.Rand { return n.rng }

// Stats returns the counters so far.
func (n *Network) Stats() Stats { return n.stats }

// SetFaults replaces the faults of every link without an override.
func (n *Network) SetFaults(f Faults) { n.faults = f }

// SetLinkFaults overrides the faults of the link between a and b (both
// directions, every session on it).
func (n *Network) SetLinkFaults(a, b string, f Faults) { n.links[pairKey(a, b)] = f }

// ClearLinkFaults removes every per-link override.
func (n *Network) ClearLinkFaults() { clear(n.links) }

func pairKey(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

func (n *Network) faultsOf(e *edge) Faults {
	if f, ok := n.links[pairKey(e.dialer, e.listener)]; ok {
		return f
	}
	return n.faults
}

// AddNode adds an up node with its log and clock skew, and starts its timer.
func (n *Network) AddNode(name string, log lssync.Log, skew time.Duration) {
	nd := &node{name: name, log: log, skew: skew, up: true}
	n.setIntegrity(nd)
	nd.sub = log.Subscribe(n.cfg.SubBuffer)
	n.nodes[name] = nd
	n.names = append(n.names, name)
	sort.Strings(n.names)
	n.schedule(n.cfg.TickEvery, func() { n.tick(name) })
}

// Connect declares that dialer connects to listener (a static peer).
func (n *Network) Connect(dialer, listener string) {
	n.edges = append(n.edges, &edge{dialer: dialer, listener: listener})
}

// Partition moves name into group; nodes talk only within their group.
// Sessions that cross groups are cut at once.
func (n *Network) Partition(name string, group int) {
	n.nodes[name].group = group
	for _, e := range n.edges {
		if e.sess != nil && !n.linked(e) {
			n.endSession(e, "partition")
		}
	}
}

// Heal moves name back into the default group.
func (n *Network) Heal(name string) { n.nodes[name].group = 0 }

// HealAll removes every partition.
func (n *Network) HealAll() {
	for _, nd := range n.nodes {
		nd.group = 0
	}
}

// Stop takes a node down: its sessions end and its subscription closes.
func (n *Network) Stop(name string) {
	nd := n.nodes[name]
	nd.up = false
	nd.sub.Close()
	for _, e := range n.edges {
		if e.sess != nil && (e.dialer == name || e.listener == name) {
			n.endSession(e, "restart")
		}
	}
}

// Start brings a stopped node back with log (the same one, or a reopened
// store over the same data).
func (n *Network) Start(name string, log lssync.Log) {
	nd := n.nodes[name]
	nd.log = log
	nd.up = true
	n.setIntegrity(nd)
	nd.sub = log.Subscribe(n.cfg.SubBuffer)
}

func (n *Network) setIntegrity(nd *node) {
	if n.cfg.Integrity == nil {
		return
	}
	nd.in = nil
	in, err := n.cfg.Integrity(nd.name, nd.log)
	if err != nil {
		if n.fatal == nil {
			n.fatal = fmt.Errorf("integrity of %s: %w", nd.name, err)
		}
		return
	}
	nd.in = in
}

// linkConfig is the Link config of name's end of a session.
func (n *Network) linkConfig(name string) lssync.Config {
	cfg := n.cfg.Link
	cfg.Integrity = n.nodes[name].in
	return cfg
}

// Up reports whether name is running.
func (n *Network) Up(name string) bool { return n.nodes[name].up }

// Log returns name's current log.
func (n *Network) Log(name string) lssync.Log { return n.nodes[name].log }

// Links returns the ready links of name's open sessions.
func (n *Network) Links(name string) []*lssync.Link {
	var out []*lssync.Link
	for _, e := range n.edges {
		if e.sess == nil {
			continue
		}
		for side, who := range []string{e.dialer, e.listener} {
			if who == name {
				out = append(out, e.sess.links[side])
			}
		}
	}
	return out
}

// Run processes events until virtual time has advanced by d. It returns
// the first unexpected link error (a storage failure or a protocol
// violation); expected session ends (timeouts) only redial.
func (n *Network) Run(d time.Duration) error {
	end := n.now.Add(d)
	for n.fatal == nil && n.queue.Len() > 0 && !n.queue[0].at.After(end) {
		ev := heap.Pop(&n.queue).(*event)
		n.now = ev.at
		ev.fn()
	}
	if n.fatal == nil {
		n.now = end
	}
	return n.fatal
}

// RunUntil runs in steps of step until cond holds or limit has passed,
// and reports whether cond held.
func (n *Network) RunUntil(limit, step time.Duration, cond func() bool) (bool, error) {
	for waited := time.Duration(0); waited <= limit; waited += step {
		if cond() {
			return true, nil
		}
		if err := n.Run(step); err != nil {
			return false, err
		}
	}
	return cond(), nil
}

// Flush offers the ops committed on name since the last flush, and the
// artifacts its feed added, to its links for push. Call it after
// appending to a node's log or putting an artifact.
func (n *Network) Flush(name string) {
	nd := n.nodes[name]
	if !nd.up {
		return
	}
	n.forLinks(name, func(l *lssync.Link, s *session, side int) ([]*pb.Frame, error) {
		return l.LocalArtifacts(context.Background())
	})
	for {
		select {
		case ops, ok := <-nd.sub.C():
			if !ok {
				n.resubscribe(nd)
				return
			}
			n.forLinks(name, func(l *lssync.Link, s *session, side int) ([]*pb.Frame, error) {
				return l.Local(context.Background(), ops)
			})
		default:
			return
		}
	}
}

func (n *Network) resubscribe(nd *node) {
	nd.sub = nd.log.Subscribe(n.cfg.SubBuffer)
	n.forLinks(nd.name, func(l *lssync.Link, s *session, side int) ([]*pb.Frame, error) {
		return l.Lagged(n.NodeNow(nd.name)), nil
	})
}

// forLinks runs fn on each of name's links and sends what it returns.
func (n *Network) forLinks(name string, fn func(*lssync.Link, *session, int) ([]*pb.Frame, error)) {
	for _, e := range n.edges {
		s := e.sess
		for side, who := range []string{e.dialer, e.listener} {
			if s == nil || who != name || e.sess != s {
				continue
			}
			out, err := fn(s.links[side], s, side)
			if err != nil {
				n.linkError(s, err)
				continue
			}
			n.send(s, side, out)
		}
	}
}

func (n *Network) tick(name string) {
	n.schedule(n.cfg.TickEvery, func() { n.tick(name) })
	if !n.nodes[name].up {
		return
	}
	n.dialEdges(name)
	n.forLinks(name, func(l *lssync.Link, s *session, side int) ([]*pb.Frame, error) {
		return l.Tick(n.NodeNow(name))
	})
	n.Flush(name)
}

func (n *Network) linked(e *edge) bool {
	a, b := n.nodes[e.dialer], n.nodes[e.listener]
	return a.up && b.up && a.group == b.group
}

func (n *Network) dialEdges(name string) {
	for _, e := range n.edges {
		if e.dialer != name || e.sess != nil || !n.linked(e) || n.now.Before(e.nextDial) {
			continue
		}
		n.nextID++
		s := &session{id: n.nextID, edge: e}
		s.links[0] = lssync.NewLink(n.linkConfig(e.dialer), n.nodes[e.dialer].log, true)
		s.links[1] = lssync.NewLink(n.linkConfig(e.listener), n.nodes[e.listener].log, false)
		if n.cfg.ApplyBehind {
			s.links[0].ApplyBehind()
			s.links[1].ApplyBehind()
		}
		e.sess = s
		n.stats.SessionsRun++
		s.links[1].Open(n.NodeNow(e.listener))
		n.send(s, 0, s.links[0].Open(n.NodeNow(e.dialer)))
	}
}

func (n *Network) endSession(e *edge, reason string) {
	e.sess = nil
	e.nextDial = n.now.Add(n.cfg.RedialAfter)
	n.stats.Ended[reason]++
}

// linkError ends the session; errors that a lossy network explains only
// redial, anything else stops the run.
func (n *Network) linkError(s *session, err error) {
	if s.edge.sess != s {
		return
	}
	n.endSession(s.edge, "error")
	if !errors.Is(err, lssync.ErrHandshakeTimeout) {
		n.fatal = fmt.Errorf("session %d (%s -> %s) at %s: %w", s.id, s.edge.dialer, s.edge.listener, n.now.Format(time.RFC3339Nano), err)
	}
}

// send puts frames from side on the wire toward the other side, with faults.
func (n *Network) send(s *session, from int, frames []*pb.Frame) {
	faults := n.faultsOf(s.edge)
	for _, f := range frames {
		b, err := proto.Marshal(f)
		if err != nil {
			n.fatal = fmt.Errorf("marshal frame: %w", err)
			return
		}
		if n.rng.Float64() < faults.Drop {
			n.stats.Dropped++
			continue
		}
		copies := 1
		if n.rng.Float64() < faults.Duplicate {
			copies = 2
			n.stats.Duplicated++
		}
		for range copies {
			n.schedule(delay(n.rng, faults), func() { n.deliver(s, 1-from, b) })
		}
	}
}

func delay(rng *rand.Rand, f Faults) time.Duration {
	span := f.MaxDelay - f.MinDelay
	if span <= 0 {
		return f.MinDelay
	}
	return f.MinDelay + time.Duration(rng.Int64N(int64(span)))
}

func (n *Network) deliver(s *session, to int, b []byte) {
	if s.edge.sess != s {
		return // the session ended while the frame was in flight
	}
	f := &pb.Frame{}
	if err := proto.Unmarshal(b, f); err != nil {
		n.fatal = fmt.Errorf("unmarshal frame: %w", err)
		return
	}
	kind := lssync.FrameKind(f)
	n.stats.Frames[kind]++
	n.stats.Bytes[kind] += len(b)
	who := []string{s.edge.dialer, s.edge.listener}[to]
	out, err := s.links[to].Handle(context.Background(), f, n.NodeNow(who))
	if err != nil {
		n.linkError(s, err)
		return
	}
	n.send(s, to, out)
	for _, q := range s.links[to].TakeQueued() {
		n.storeLater(s, to, q)
	}
	n.Flush(who)
}

// storeLater stores a batch that end side of s queued, after a random
// delay and after the batches it queued before, unless the session ended
// meanwhile (the batch is then lost, as when a session's applier stops).
func (n *Network) storeLater(s *session, side int, q *lssync.QueuedBatch) {
	at := n.now.Add(delay(n.rng, Faults{MaxDelay: n.cfg.ApplyDelay}))
	if at.Before(s.storeAt[side]) {
		at = s.storeAt[side]
	}
	s.storeAt[side] = at
	n.schedule(at.Sub(n.now), func() {
		if s.edge.sess != s {
			return
		}
		who := []string{s.edge.dialer, s.edge.listener}[side]
		res, err := n.nodes[who].log.ApplyBatch(context.Background(), q.Batch())
		out, err := s.links[side].Stored(context.Background(), q, res, err, n.NodeNow(who))
		if err != nil {
			n.linkError(s, err)
			return
		}
		n.send(s, side, out)
		n.Flush(who)
	})
}

type event struct {
	at  time.Time
	seq uint64
	fn  func()
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	ev := old[len(old)-1]
	*q = old[:len(old)-1]
	return ev
}

func (n *Network) schedule(d time.Duration, fn func()) {
	n.seq++
	heap.Push(&n.queue, &event{at: n.now.Add(d), seq: n.seq, fn: fn})
}
