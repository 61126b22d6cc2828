package membership

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"sync"

	"github.com/hashicorp/memberlist"
)

// Keyring messages travel as memberlist user messages (SendReliable: a TCP
// stream encrypted with the sender's primary key, so only a node holding
// a current key can send one or read one). The idea is serf's key
// queries. A message is one kind byte and a JSON body:
//
//	keyRequest  {"id": "...", "from": "node-a", "op": "install", "key": "<base64>"}
//	keyReply    {"id": "...", "node": "node-b", "error": "", "keys": ["<base64>", ...], "primary": "<base64>"}
const (
	msgKeyRequest byte = 1
	msgKeyReply   byte = 2
)

// maxKeyMessage bounds a keyring message; larger ones are dropped.
const maxKeyMessage = 64 << 10

// keyRequests is how many received requests may wait for the keyring
// goroutine; more are dropped (the requester reports no answer).
const keyRequests = 16

type keyRequest struct {
	ID   string `json:"id"`
	From string `json:"from"`
	Op   KeyOp  `json:"op"`
	Key  string `json:"key,omitempty"`
}

type keyReply struct {
	ID      string   `json:"id"`
	Node    string   `json:"node"`
	Error   string   `json:"error,omitempty"`
	Keys    []string `json:"keys,omitempty"`
	Primary string   `json:"primary,omitempty"`
}

func encodeKeyMessage(kind byte, body any) ([]byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return append([]byte{kind}, raw...), nil
}

// pendingReplies routes replies to the operation waiting for them, by
// request id.
type pendingReplies struct {
	mu      sync.Mutex
	waiting map[string]chan keyReply // each buffered for every expected reply
}

func (p *pendingReplies) add(id string, ch chan keyReply) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiting == nil {
		p.waiting = map[string]chan keyReply{}
	}
	p.waiting[id] = ch
}

func (p *pendingReplies) remove(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.waiting, id)
}

// deliver hands r to its operation without blocking; a reply for no
// operation (late, after the timeout) or beyond the expected count is
// dropped.
func (p *pendingReplies) deliver(r keyReply) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case p.waiting[r.ID] <- r:
	default:
	}
}

// userMessage takes a user message from memberlist's loops (NotifyMsg):
// a keyring reply goes to its waiting operation, a keyring request to the
// keyring goroutine's queue, a leaving notice to the table (leave.go). It
// never blocks.
func (m *Membership) userMessage(b []byte) {
	if len(b) < 2 || len(b) > maxKeyMessage {
		m.log.Warn("user message dropped: bad size", "bytes", len(b))
		return
	}
	switch b[0] {
	case msgLeaving:
		m.leavingNotice(string(b[1:]))
	case msgKeyReply:
		var r keyReply
		if err := json.Unmarshal(b[1:], &r); err != nil {
			m.log.Warn("keyring reply dropped: malformed", "err", err)
			return
		}
		m.pending.deliver(r)
	case msgKeyRequest:
		var r keyRequest
		if err := json.Unmarshal(b[1:], &r); err != nil {
			m.log.Warn("keyring request dropped: malformed", "err", err)
			return
		}
		select {
		case m.keyReqs <- r:
		default:
			m.log.Warn("keyring request dropped: queue full", "from", r.From, "op", r.Op)
		}
	default:
		m.log.Warn("user message of unknown kind dropped", "kind", b[0])
	}
}

// runKeyRequests is the keyring goroutine: it applies the requests of
// other members to this node's keyring and answers each.
func (m *Membership) runKeyRequests() {
	for {
		select {
		case <-m.stop:
			return
		case req := <-m.keyReqs:
			reply, err := m.applyKeyOp(req.Op, req.Key)
			reply.ID = req.ID
			if err == nil {
				m.log.Info("keyring changed at a member's request", "op", req.Op, "from", req.From)
			} else {
				m.log.Warn("keyring request refused", "op", req.Op, "from", req.From, "err", err)
			}
			if err := m.sendKeyReply(req.From, reply); err != nil {
				m.log.Warn("keyring reply not sent", "to", req.From, "err", err)
			}
		}
	}
}

func (m *Membership) sendKeyReply(to string, r keyReply) error {
	var target *memberlist.Node
	for _, mem := range m.alivePeers() {
		if mem.Name == to {
			target = mem
		}
	}
	if target == nil {
		return fmt.Errorf("%s is not an alive member", to)
	}
	msg, err := encodeKeyMessage(msgKeyReply, r)
	if err != nil {
		return err
	}
	return m.ml.SendReliable(target, msg)
}

// alivePeers are the members a keyring operation or a leaving notice
// reaches: every other member that is up, as nodes to send to. They are
// built from this package's table, not memberlist.Members(), whose nodes
// memberlist keeps changing.
func (m *Membership) alivePeers() []*memberlist.Node {
	var out []*memberlist.Node
	for _, mem := range m.Members() {
		if mem.Name == m.cfg.Name || !mem.State.Up() {
			continue
		}
		host, port, err := net.SplitHostPort(mem.Addr)
		if err != nil {
			continue
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			continue
		}
		out = append(out, &memberlist.Node{Name: mem.Name, Addr: net.ParseIP(host), Port: uint16(p)})
	}
	return out
}
