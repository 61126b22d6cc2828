// Package memnet is a partitionable network for memberlist in tests. A Hub
// hands out transports, either over memberlist's in-memory MockNetwork
// (NewTransport) or wrapping a real one such as memberlist's NetTransport
// (Wrap), and can cut and heal the links between named nodes: Partition,
// Cut, Isolate (a frozen node: nothing in or out), Restore, Mute (a node
// whose packets are all lost while its streams get through), Unmute,
// HealAll.
//
// Links are checked on the sending side: a packet over a cut link is
// dropped silently (as UDP would lose it) and a stream dial fails, so
// memberlist sees exactly what a real partition shows it. Every
// transport's receive channels are drained by pump goroutines owned by
// the Hub, so a sender never blocks on a node that stopped reading (a shut
// down MockTransport would otherwise block its peers forever). Close stops
// and joins the pumps; call it after every memberlist using the Hub is
// shut down.
//
// Production code never imports this package.
package memnet

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

// packetBuffer is how many packets may wait for one node's memberlist;
// more are dropped, as a full UDP socket buffer would drop them.
const packetBuffer = 1024

// ErrLinkCut is the cause of a dial over a cut link.
var ErrLinkCut = errors.New("memnet: link cut")

// Hub is one network of named nodes and the state of its links.
type Hub struct {
	// netMu serialises use of the MockNetwork, which is not safe for
	// concurrent use: NewTransport writes its maps, sends read them. Pumps
	// never take it, so a send holding it cannot wait on a pump that waits
	// on it.
	netMu sync.RWMutex
	mock  memberlist.MockNetwork

	mu       sync.Mutex
	byName   map[string]*Transport
	byAddr   map[string]string
	cut      map[[2]string]bool // unordered pairs, sorted
	isolated map[string]bool
	muted    map[string]bool
	dropped  int64 // sends refused because a link was cut or a node muted

	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// New returns an empty Hub.
func New() *Hub {
	return &Hub{
		byName:   map[string]*Transport{},
		byAddr:   map[string]string{},
		cut:      map[[2]string]bool{},
		isolated: map[string]bool{},
		muted:    map[string]bool{},
		closed:   make(chan struct{}),
	}
}

// NewTransport returns a MockNetwork transport for node name.
func (h *Hub) NewTransport(name string) *Transport {
	h.netMu.Lock()
	inner := h.mock.NewTransport(name)
	h.netMu.Unlock()
	ip, port, _ := inner.FinalAdvertiseAddr("", 0)
	return h.add(name, net.JoinHostPort(ip.String(), fmt.Sprint(port)), inner, true)
}

// Wrap puts a real transport (reachable at addr, host:port) under the
// Hub's control as node name.
func (h *Hub) Wrap(name, addr string, inner memberlist.NodeAwareTransport) *Transport {
	return h.add(name, addr, inner, false)
}

func (h *Hub) add(name, addr string, inner memberlist.NodeAwareTransport, mock bool) *Transport {
	t := &Transport{
		hub:     h,
		name:    name,
		addr:    addr,
		inner:   inner,
		mock:    mock,
		packets: make(chan *memberlist.Packet, packetBuffer),
		streams: make(chan net.Conn),
		down:    make(chan struct{}),
	}
	h.mu.Lock()
	h.byName[name] = t
	h.byAddr[addr] = name
	h.mu.Unlock()
	h.wg.Add(2)
	go t.pumpPackets()
	go t.pumpStreams()
	return t
}

// Partition cuts every link between nodes of different groups. Links of
// nodes in no group are untouched.
func (h *Hub) Partition(groups ...[]string) {
	for i, g := range groups {
		for _, other := range groups[i+1:] {
			for _, a := range g {
				for _, b := range other {
					h.Cut(a, b)
				}
			}
		}
	}
}

// Cut cuts the link between a and b, both ways.
func (h *Hub) Cut(a, b string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cut[pair(a, b)] = true
}

// Isolate cuts every link of name, both ways, including to nodes added
// later: the node looks frozen (SIGSTOP) or unplugged.
func (h *Hub) Isolate(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.isolated[name] = true
}

// Restore undoes Isolate.
func (h *Hub) Restore(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.isolated, name)
}

// Mute loses every packet name sends from now on; its stream dials still
// connect. It models a node whose gossip never arrives although TCP does.
func (h *Hub) Mute(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.muted[name] = true
}

// Unmute undoes Mute.
func (h *Hub) Unmute(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.muted, name)
}

// HealAll restores every cut link and isolated or muted node.
func (h *Hub) HealAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cut = map[[2]string]bool{}
	h.isolated = map[string]bool{}
	h.muted = map[string]bool{}
}

// Dropped returns how many sends were refused because a link was cut or
// the sender muted.
func (h *Hub) Dropped() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped
}

// Close stops and joins every pump. Transports must not be used after.
func (h *Hub) Close() {
	h.closeOnce.Do(func() { close(h.closed) })
	h.wg.Wait()
}

// allow reports whether src may send a packet (or open a stream) to the
// node at a, and counts a refusal. An address the Hub does not know is
// reachable.
func (h *Hub) allow(src string, a memberlist.Address, packet bool) bool {
	select {
	case <-h.closed: // nobody drains any more: a send would block forever
		return false
	default:
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	dst := a.Name
	if dst == "" {
		dst = h.byAddr[a.Addr]
	}
	if dst == "" || dst == src {
		return true
	}
	if h.isolated[src] || h.isolated[dst] || h.cut[pair(src, dst)] || packet && h.muted[src] {
		h.dropped++
		return false
	}
	return true
}

func pair(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

// Transport is one node's view of the Hub; it implements
// memberlist.NodeAwareTransport.
type Transport struct {
	hub      *Hub
	name     string
	addr     string
	inner    memberlist.NodeAwareTransport
	mock     bool
	packets  chan *memberlist.Packet
	streams  chan net.Conn
	down     chan struct{} // closed by Shutdown
	downOnce sync.Once
}

var _ memberlist.NodeAwareTransport = (*Transport)(nil)

// Addr is the node's address on the Hub, host:port.
func (t *Transport) Addr() string { return t.addr }

// FinalAdvertiseAddr implements memberlist.Transport.
func (t *Transport) FinalAdvertiseAddr(ip string, port int) (net.IP, int, error) {
	return t.inner.FinalAdvertiseAddr(ip, port)
}

// WriteTo implements memberlist.Transport.
func (t *Transport) WriteTo(b []byte, addr string) (time.Time, error) {
	return t.WriteToAddress(b, memberlist.Address{Addr: addr})
}

// WriteToAddress sends a packet, or drops it silently over a cut link.
func (t *Transport) WriteToAddress(b []byte, a memberlist.Address) (time.Time, error) {
	if !t.hub.allow(t.name, a, true) {
		return time.Now(), nil
	}
	if t.mock {
		t.hub.netMu.RLock()
		defer t.hub.netMu.RUnlock()
	}
	return t.inner.WriteToAddress(b, a)
}

// PacketCh implements memberlist.Transport.
func (t *Transport) PacketCh() <-chan *memberlist.Packet { return t.packets }

// DialTimeout implements memberlist.Transport.
func (t *Transport) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	return t.DialAddressTimeout(memberlist.Address{Addr: addr}, timeout)
}

// DialAddressTimeout opens a stream, or fails over a cut link the way a
// refused TCP dial does.
func (t *Transport) DialAddressTimeout(a memberlist.Address, timeout time.Duration) (net.Conn, error) {
	if !t.hub.allow(t.name, a, false) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: ErrLinkCut}
	}
	if t.mock {
		t.hub.netMu.RLock()
		defer t.hub.netMu.RUnlock()
	}
	return t.inner.DialAddressTimeout(a, timeout)
}

// StreamCh implements memberlist.Transport.
func (t *Transport) StreamCh() <-chan net.Conn { return t.streams }

// Shutdown implements memberlist.Transport: the node stops receiving
// (the pump discards what still arrives) and the inner transport stops.
func (t *Transport) Shutdown() error {
	t.downOnce.Do(func() { close(t.down) })
	return t.inner.Shutdown()
}

// pumpPackets and pumpStreams move what the inner transport receives to
// memberlist until the Hub is closed; after Shutdown they discard it.
func (t *Transport) pumpPackets() {
	defer t.hub.wg.Done()
	for {
		select {
		case <-t.hub.closed:
			return
		case p := <-t.inner.PacketCh():
			t.deliverPacket(p)
		}
	}
}

func (t *Transport) pumpStreams() {
	defer t.hub.wg.Done()
	for {
		select {
		case <-t.hub.closed:
			return
		case c := <-t.inner.StreamCh():
			t.deliverStream(c)
		}
	}
}

func (t *Transport) deliverPacket(p *memberlist.Packet) {
	select {
	case <-t.down:
		return
	default:
	}
	select {
	case t.packets <- p:
	default: // full: lost, as UDP would lose it
	}
}

func (t *Transport) deliverStream(c net.Conn) {
	select {
	case t.streams <- c:
	case <-t.down:
		c.Close()
	case <-t.hub.closed:
		c.Close()
	}
}
